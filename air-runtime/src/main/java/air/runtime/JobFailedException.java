package air.runtime;

/** A job stopped because an operator or the engine failed; the message names the operator and record. */
public class JobFailedException extends RuntimeException {

    public JobFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
