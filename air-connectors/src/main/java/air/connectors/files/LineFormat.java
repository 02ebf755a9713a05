package air.connectors.files;

/**
 * How the lines of a text file become records. A format is shared by every file and instance;
 * the {@link Decoder} it gives for one file is used by that file's reader only.
 */
public interface LineFormat<T> {

    /** Whether every file begins with a header line, read by the format and never emitted. */
    default boolean hasHeader() {
        return false;
    }

    /** Whether blank lines are passed over (true for structured formats) rather than decoded. */
    default boolean skipsBlankLines() {
        return true;
    }

    /**
     * The decoder of one file, given its header line (null when {@link #hasHeader} is false).
     *
     * @throws Exception when the header cannot be used: every line of that file is then a bad record
     */
    Decoder<T> decoder(String header) throws Exception;

    /** One word for plans and messages: {@code lines}, {@code csv(Click)}, {@code json(Click)}. */
    String describe();

    /** Decodes one line; throws (anything) when the line is not a record of this format. */
    @FunctionalInterface
    interface Decoder<T> {
        T decode(String line) throws Exception;
    }
}
