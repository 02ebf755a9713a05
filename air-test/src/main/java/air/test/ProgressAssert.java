package air.test;

import air.runtime.api.WindowResult;
import air.runtime.api.WindowValue;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.assertj.core.api.AbstractAssert;
import org.assertj.core.api.Assertions;
import org.assertj.core.api.ListAssert;

/**
 * Assertions on when records reached a {@link TestDriverOutput}, in event time:
 * {@code assertThatFirings(counts).windowFiredOnceBy(0, 10_000, 10_000)} says "every result of
 * window [0, 10 s) was written once per key, once progress passed 10 s — not before, and by the
 * step that moved event time to 10 s". The event time a record fired at is the progress its writer
 * was told of right after it. When a step moves event time over several windows, how far
 * progress jumps at once depends on the progress mode (low watermarks jump to the step's frame,
 * hew-meld completes epoch by epoch), so window assertions take a bound, not one value.
 */
public final class ProgressAssert<T> extends AbstractAssert<ProgressAssert<T>, List<TestDriverOutput.Fired<T>>> {

    private final String output;

    private ProgressAssert(TestDriverOutput<T> out) {
        super(out.firings(), ProgressAssert.class);
        this.output = out.describe();
    }

    public static <T> ProgressAssert<T> assertThatFirings(TestDriverOutput<T> out) {
        return new ProgressAssert<>(Objects.requireNonNull(out, "assertThatFirings(out): out is null"));
    }

    /** The records that fired when event time reached exactly {@code t}, to assert on. */
    public ListAssert<T> firedAt(long t) {
        List<T> items = new ArrayList<>();
        for (TestDriverOutput.Fired<T> f : actual) {
            if (f.firedAt() == t) {
                items.add(f.item());
            }
        }
        return Assertions.assertThat(items).as("records of %s that fired at event time %d", output, t);
    }

    /** Nothing fired before event time reached {@code t}. */
    public ProgressAssert<T> nothingFiredBefore(long t) {
        for (TestDriverOutput.Fired<T> f : actual) {
            if (f.firedAt() < t) {
                failWithMessage("%s: expected nothing to fire before event time %d, but %s fired at %d", output, t, f.item(), f.firedAt());
            }
        }
        return this;
    }

    /**
     * Window {@code [start, end)} has results, each key's once, all of them fired once progress
     * had passed {@code end} and no later than event time {@code by} (the step that should have
     * fired it; {@code by == end} for "exactly when event time reached its end").
     */
    public ProgressAssert<T> windowFiredOnceBy(long start, long end, long by) {
        Set<Object> keys = new HashSet<>();
        Set<Long> firedAt = new TreeSet<>();
        int results = 0;
        for (TestDriverOutput.Fired<T> f : actual) {
            Object item = f.item();
            long s;
            long e;
            Object key;
            if (item instanceof WindowResult<?, ?> r) {
                s = r.start();
                e = r.end();
                key = r.key();
            } else if (item instanceof WindowValue<?> v) {
                s = v.start();
                e = v.end();
                key = "(unkeyed)";
            } else {
                failWithMessage("%s received %s, which is not a window result", output, item);
                return this;
            }
            if (s != start) {
                continue;
            }
            if (e != end) {
                failWithMessage("%s: the window starting at %d ends at %d, not %d", output, s, e, end);
            }
            results++;
            if (!keys.add(key)) {
                failWithMessage("%s: window [%d, %d) fired key %s twice", output, start, end, key);
            }
            firedAt.add(f.firedAt());
        }
        if (results == 0) {
            failWithMessage("%s: window [%d, %d) has not fired (no result has been followed by progress yet)", output, start, end);
        }
        for (long at : firedAt) {
            if (at < end || at > by) {
                failWithMessage("%s: window [%d, %d) fired at event time %s, expected from %d to %d", output, start, end, firedAt, end, by);
            }
        }
        return this;
    }
}
