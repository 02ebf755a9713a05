package air.runtime.source.split;

/** What a split reader may ask of its source instance. */
public interface SplitContext {

    /**
     * A record of this split could not be decoded: applies the source's
     * {@link air.runtime.api.BadRecordPolicy}. Returns normally when the record is skipped or
     * dead-lettered (the reader then goes on past it); throws, naming {@code origin}, under fail.
     */
    void badRecord(String origin, byte[] raw, Exception cause);

    /** The source stage's name, for messages. */
    String sourceName();
}
