package air.runtime.plan;

import java.util.Comparator;
import java.util.Objects;

/**
 * What the final half of a window aggregation emits per window, that is which final operator runs:
 * one result per key ({@link PerKey}), or the {@code n} best keys ({@link TopK}).
 */
public sealed interface WindowOutput {

    String describe();

    /** One {@code WindowResult} per (window, key): the plain aggregation. */
    record PerKey() implements WindowOutput {
        public String describe() {
            return "";
        }
    }

    /**
     * One {@code WindowTopK} per window: the {@code n} keys with the greatest results by
     * {@code comparator}, best first. Needs every key of a window on one instance: AIR routing.
     */
    record TopK(int n, Comparator<?> comparator) implements WindowOutput {
        public TopK {
            if (n < 1) {
                throw new IllegalArgumentException("top-k needs n >= 1, was " + n);
            }
            Objects.requireNonNull(comparator, "comparator");
        }

        public String describe() {
            return "top " + n + " of "; // no comparator text: it must read the same on every peer
        }
    }
}
