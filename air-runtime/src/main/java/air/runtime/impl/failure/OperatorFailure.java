package air.runtime.impl.failure;

import air.runtime.plan.OperatorInfo;

/** A user function threw; carries the operator so that the tasklet can add the record's position. */
public final class OperatorFailure extends RuntimeException {

    private final transient OperatorInfo operator;
    private final String what;

    public OperatorFailure(OperatorInfo operator, String what, Throwable cause) {
        super(operator.name() + " " + what + ": " + cause, cause);
        this.operator = operator;
        this.what = what;
    }

    /** What went wrong, e.g. {@code threw on 42}. */
    public String what() {
        return what;
    }

    public OperatorInfo operator() {
        return operator;
    }

    public static String preview(Object item) {
        String s;
        try {
            s = String.valueOf(item);
        } catch (RuntimeException e) {
            s = item.getClass().getName() + " (toString failed)";
        }
        return s.length() > 120 ? s.substring(0, 117) + "..." : s;
    }
}
