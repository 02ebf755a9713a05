package air.test;

/**
 * One thing an operator under {@link OperatorHarness} emitted: the item and its event time
 * ({@link HarnessOutput#NO_TIMESTAMP} when it was emitted without one). Printed as
 * {@code item@time}, which is how the harness compares outputs (items need no {@code equals}).
 */
public record Emitted(long timestamp, Object item) {

    @Override
    public String toString() {
        return timestamp == HarnessOutput.NO_TIMESTAMP ? String.valueOf(item) : item + "@" + timestamp;
    }
}
