package air.test;

import java.util.ArrayList;
import java.util.List;

/**
 * A scripted input for {@link OperatorCheck}: items on inputs and progress steps, in order,
 * ending with the end of input. Build a fresh script for each replay (a {@code Supplier}): items
 * such as a window's partials hand their accumulators over to the operator, which may change them.
 *
 * <pre>{@code
 * OperatorScript.builder().item(0, a).item(1, b).progress(10).item(0, c).build();
 * }</pre>
 */
public final class OperatorScript {

    /** One step of a script. */
    public sealed interface Step permits Item, Progress {
        /** Plays this step on {@code harness}. */
        void play(OperatorHarness harness);
    }

    /** A data item on input {@code input}. */
    public record Item(int input, Object item) implements Step {
        @Override
        public void play(OperatorHarness harness) {
            harness.item(input, item);
        }
    }

    /** Every input is complete below {@code completeBelow}. */
    public record Progress(long completeBelow) implements Step {
        @Override
        public void play(OperatorHarness harness) {
            harness.progress(completeBelow);
        }
    }

    private final List<Step> steps;

    private OperatorScript(List<Step> steps) {
        this.steps = List.copyOf(steps);
    }

    /** A script of these steps (the end of input follows them). */
    public static OperatorScript of(List<Step> steps) {
        return new OperatorScript(steps);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The steps, in order (the end of input is not one: it always follows them). */
    public List<Step> steps() {
        return steps;
    }

    /** Builds a script step by step. */
    public static final class Builder {
        private final List<Step> steps = new ArrayList<>();

        public Builder item(int input, Object item) {
            steps.add(new Item(input, item));
            return this;
        }

        public Builder item(Object item) {
            return item(0, item);
        }

        public Builder progress(long completeBelow) {
            steps.add(new Progress(completeBelow));
            return this;
        }

        public OperatorScript build() {
            return new OperatorScript(steps);
        }
    }
}
