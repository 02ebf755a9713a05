package air.test;

import air.runtime.api.Emitter;
import java.util.ArrayList;
import java.util.List;

/**
 * Where an operator under {@link OperatorHarness} emits: the harness's stand-in for the output the
 * engine builds an operator with. It is an {@link Emitter}, and takes an event time with each item
 * too ({@link #emit(long, Object)}), as the engine's output does. A test whose operator is built
 * with another output type adapts it in one line per method (forward to {@link #emit(long, Object)}).
 *
 * <p>It outlives the operator instances: when the harness restores a fresh instance from a
 * snapshot, the fresh one emits into the same output, so a run's output reads as one sequence.
 */
public final class HarnessOutput implements Emitter<Object> {

    /** The event time of an item emitted without one (the engine's "no timestamp"). */
    public static final long NO_TIMESTAMP = Long.MIN_VALUE;

    private final List<Emitted> emitted = new ArrayList<>();

    @Override
    public void emit(Object item) {
        emitted.add(new Emitted(NO_TIMESTAMP, item));
    }

    /** Emits {@code item} with event time {@code timestamp}. */
    public void emit(long timestamp, Object item) {
        emitted.add(new Emitted(timestamp, item));
    }

    /** Everything emitted so far, oldest first. */
    public List<Emitted> emitted() {
        return List.copyOf(emitted);
    }

    /** Everything emitted since the last call (or the start), oldest first; forgets it. */
    List<Emitted> take() {
        List<Emitted> out = List.copyOf(emitted);
        emitted.clear();
        return out;
    }
}
