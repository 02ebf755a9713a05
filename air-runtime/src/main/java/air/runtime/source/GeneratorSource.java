package air.runtime.source;

import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import air.runtime.impl.source.GeneratorReader;
import java.util.Objects;
import java.util.function.LongFunction;

/**
 * A source of {@code fn(i)} for {@code i in [0, count)}, split across instances by stride:
 * instance {@code s} of {@code P} emits {@code s, s + P, s + 2P, ...} in increasing order, so
 * every instance stays ascending in index; or, {@link #inBlocks in blocks}, the blocks
 * {@code s, s + P, ...} of consecutive indices (for a function that reads memory in index order,
 * as a list's {@code get} does: each instance then streams through memory of its own). The
 * function must be pure in {@code i}: that makes every position replayable.
 */
public final class GeneratorSource<T> implements SourceFactory<T> {

    private final String name;
    private final long count;
    private final LongFunction<? extends T> fn;
    private final long ratePerSecond;
    private final long startNanos;
    private final long block;

    public GeneratorSource(String name, long count, LongFunction<? extends T> fn) {
        this(name, count, fn, 0, 0, 1);
    }

    private GeneratorSource(String name, long count, LongFunction<? extends T> fn, long ratePerSecond, long startNanos, long block) {
        this.name = Objects.requireNonNull(name, "name");
        if (count < 0) {
            throw new IllegalArgumentException(name + ": count must be >= 0, was " + count);
        }
        this.count = count;
        this.fn = Objects.requireNonNull(fn, name + ": fn is null");
        this.ratePerSecond = ratePerSecond;
        this.startNanos = startNanos;
        this.block = block;
    }

    /** The same source, emitting index {@code i} no earlier than {@code startNanos + i / rate} s. */
    public GeneratorSource<T> paced(long eventsPerSecond, long scheduleStartNanos) {
        if (eventsPerSecond <= 0) {
            throw new IllegalArgumentException(name + ": paced(eventsPerSecond): must be > 0, was " + eventsPerSecond);
        }
        return new GeneratorSource<>(name, count, fn, eventsPerSecond, scheduleStartNanos, block);
    }

    /**
     * The same source, split in blocks of {@code indices} consecutive indices dealt out in turn
     * (the block length must stay the same for a checkpoint to resume on another layout).
     */
    public GeneratorSource<T> inBlocks(long indices) {
        if (indices < 1) {
            throw new IllegalArgumentException(name + ": inBlocks(indices): must be > 0, was " + indices);
        }
        return new GeneratorSource<>(name, count, fn, ratePerSecond, startNanos, indices);
    }

    public long count() {
        return count;
    }

    @Override
    public SourceReader<T> createReader(int instance, int parallelism) {
        return new GeneratorReader<>(fn, instance, parallelism, block, count, startNanos, ratePerSecond);
    }

    /** The reader's constructor arguments, for an engine that instantiates a per-job copy of its class. */
    public Object[] readerArguments(int instance, int parallelism) {
        return new Object[] {fn, (long) instance, (long) parallelism, block, count, startNanos, ratePerSecond};
    }

    @Override
    public String describe() {
        return name + "(" + count + (ratePerSecond > 0 ? ", paced " + ratePerSecond + "/s" : "") + ")";
    }
}
