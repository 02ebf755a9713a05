package air.runtime.plan;

import air.runtime.api.AggregateOp;
import java.util.Comparator;
import java.util.Objects;

/**
 * What the final half of a window aggregation emits per window, that is which final operator runs:
 * one result per key ({@link PerKey}), one row per key and emission of a window that may be
 * emitted more than once ({@link Upserts}), the {@code n} best keys ({@link TopK}), or per-key windows
 * cut from the key's own records ({@link Sessions}, {@link Counts}), whose partial halves ship
 * {@link SessionPart}s and {@link CountPart}s in panes of event time.
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
     * {@code WindowUpdate} rows per (window, key), as upserts: on time, again for records late
     * within the aggregation's allowed lateness, and early on its processing-time interval. A
     * separate operator so that a plain window ({@link PerKey}) runs without any of it.
     */
    record Upserts() implements WindowOutput {
        public String describe() {
            return "upserts of ";
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

    /**
     * Session windows of gap {@code gapMs} per key: the partial half keeps a {@link SessionPart}
     * per (pane, key), the final half merges a key's parts into sessions and emits each once
     * progress passes its last record + gap. Routed by key: a session has no fixed start, so it
     * cannot be routed by window (under a job's AIR routing too; explain shows routing=KEY).
     * {@code op} is the user's aggregation, whose accumulators the parts carry (the plan's
     * aggregation is {@link SessionPart#aggregation} of it).
     */
    record Sessions(long gapMs, AggregateOp<?, ?, ?> op) implements WindowOutput {
        /** The longest pane: a session closes at most this much event time after progress passes its end. */
        public static final long MAX_PANE_MS = 1_000;

        public Sessions {
            if (gapMs <= 0) {
                throw new IllegalArgumentException("a session window needs a gap > 0 ms, was " + gapMs);
            }
            Objects.requireNonNull(op, "op");
        }

        /** The panes the partial half keeps: never longer than the gap, so a pane's records of a key are one session's. */
        public long paneMs() {
            return Math.min(gapMs, MAX_PANE_MS);
        }

        public String describe() {
            return "sessions gap " + gapMs + "ms (routed by key) of ";
        }
    }

    /**
     * Count windows of {@code size} records per key: the partial half keeps a {@link CountPart} per
     * (pane, key), the final half cuts a key's records into windows of {@code size}. Routed by key.
     * {@code op} is the user's aggregation (the plan's is {@link CountPart#aggregation} of it).
     */
    record Counts(long size, AggregateOp<?, ?, ?> op) implements WindowOutput {
        /** The panes the partial half ships records in. */
        public static final long PANE_MS = 100;

        public Counts {
            if (size < 1) {
                throw new IllegalArgumentException("a count window needs size >= 1, was " + size);
            }
            Objects.requireNonNull(op, "op");
        }

        public String describe() {
            return "count windows of " + size + " (routed by key) of ";
        }
    }
}
