package air.runtime.api;

/** A record could not be used and the policy is {@link BadRecordPolicy#fail()}: names the stage and the record's origin. */
public final class BadRecordException extends RuntimeException {

    private final String origin;

    public BadRecordException(String operator, String origin, Throwable cause) {
        super(operator + ": the record at " + origin + " cannot be used: " + cause
                + " (bad-record policy 'fail'; BadRecordPolicy.skip() or deadLetter(sink) go on past such records)", cause);
        this.origin = origin;
    }

    /** Where the record came from: {@code clicks.json:17}, {@code orders-3@1042}. */
    public String origin() {
        return origin;
    }
}
