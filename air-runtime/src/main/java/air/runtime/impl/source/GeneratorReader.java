package air.runtime.impl.source;

import air.runtime.api.Emitter;
import air.runtime.api.SourceReader;
import air.runtime.impl.ops.PaddedOperator;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;

/**
 * Emits {@code fn(i)} for its instance's share of the indices below {@code end}: the blocks of
 * {@code block} consecutive indices numbered {@code instance, instance + parallelism, ...}, each
 * in order (with blocks of 1, the indices {@code instance, instance + parallelism, ...}).
 * Optionally paced so that index {@code i} is not emitted before {@code startNanos + i / rate}
 * seconds. Its position is the next index, so a replay after {@code seek} is exact.
 *
 * <p>Why blocks: a generated record costs the same wherever its index is, but a record read from
 * memory (an application's list) does not. With a stride of single indices every instance walks
 * the whole list and loads every cache line, the others' records too, so two instances read twice
 * the memory one does (measured: a keyed count over 100M listed records ran no faster at 2
 * workers than at 1); with blocks each instance streams through memory of its own, and the
 * instances still advance through the indices, and so through event time, side by side.
 */
public final class GeneratorReader<T> extends PaddedOperator implements SourceReader<T> {

    private final LongFunction<? extends T> fn;
    private final long instance;
    private final long parallelism;
    private final long block;
    /** From one index to the next inside a block: {@code parallelism} with blocks of 1, else 1. */
    private final long step;
    private final long end;
    private final long startNanos;
    private final double indicesPerNano;
    private long next;
    /** Resumed onto another layout: the earlier layouts' positions, and the index from which they emitted nothing. */
    private List<long[]> before = List.of();
    private long skipBelow = Long.MIN_VALUE;

    public GeneratorReader(LongFunction<? extends T> fn, long instance, long parallelism, long block, long end, long startNanos,
                           long ratePerSecond) {
        if (instance < 0 || parallelism < 1 || instance >= parallelism || block < 1) {
            throw new IllegalArgumentException("instance " + instance + " of " + parallelism + ", blocks of " + block);
        }
        this.fn = fn;
        this.instance = instance;
        this.parallelism = parallelism;
        this.block = block;
        this.step = block == 1 ? parallelism : 1;
        this.next = instance * block;
        this.end = end;
        this.startNanos = startNanos;
        this.indicesPerNano = ratePerSecond / 1e9;
    }

    @Override
    public int read(int max, Emitter<? super T> out) {
        long i = next;
        if (i >= end) {
            return EXHAUSTED;
        }
        if (i < skipBelow) {
            return readSkipping(i, max, out);
        }
        long count = Math.min(max, block == 1 ? (end - i + step - 1) / step : Math.min(end, (i / block + 1) * block) - i);
        if (indicesPerNano > 0) {
            long due = dueLimit();
            if (due <= i) {
                waitUntilDue(i);
                return 0;
            }
            count = Math.min(count, (due - i + step - 1) / step);
        }
        emitRange(i, (int) count, out);
        return (int) count;
    }

    /**
     * The hot loop, kept out of {@link #read} on purpose: the rare branches of {@code read} (end of
     * input, pacing) then deoptimise only {@code read}, never the compiled loop with the fused chain.
     */
    private void emitRange(long first, int count, Emitter<? super T> out) {
        long i = first;
        try {
            for (int k = 0; k < count; k++, i += step) {
                out.emit(fn.apply(i));
            }
        } finally {
            next = block > 1 && i % block == 0 ? i + (parallelism - 1) * block : i; // a block done: on to this instance's next
        }
    }

    /** The index after {@code x} in this instance's share. */
    private long after(long x) {
        long y = x + step;
        return block > 1 && y % block == 0 ? y + (parallelism - 1) * block : y;
    }

    /** The first index of this instance's share at or after {@code x}. */
    private long firstOwnFrom(long x) {
        long b = x / block;
        long ahead = Math.floorMod(instance - b, parallelism);
        if (block == 1) {
            return x + ahead;
        }
        return ahead == 0 ? x : (b + ahead) * block;
    }

    /**
     * Earlier layouts' readers emitted index {@code x} when it was below the position of the one
     * whose share it was (its block's number mod their parallelism; the block length is the
     * source's, the same in every layout): one earlier layout, or several after several restores
     * onto other layouts, oldest first.
     */
    @Override
    public void resumeAfter(List<long[]> earlierLayouts) {
        long allBelow = Long.MIN_VALUE;
        long noneFrom = Long.MIN_VALUE;
        for (long[] layout : earlierLayouts) {
            if (layout.length == 0) {
                throw new IllegalArgumentException("an earlier layout of no instances");
            }
            allBelow = Math.max(allBelow, Arrays.stream(layout).min().getAsLong());
            noneFrom = Math.max(noneFrom, Arrays.stream(layout).max().getAsLong());
        }
        before = List.copyOf(earlierLayouts);
        skipBelow = noneFrom;
        // the first index of this reader's share that no earlier reader can have emitted
        next = firstOwnFrom(Math.max(next, allBelow));
    }

    private boolean emittedBefore(long x) {
        for (long[] layout : before) {
            if (x < layout[(int) Math.floorMod(x / block, (long) layout.length)]) {
                return true;
            }
        }
        return false;
    }

    /** The indices below {@link #skipBelow}, one by one: those an earlier layout emitted are passed over. */
    private int readSkipping(long first, int max, Emitter<? super T> out) {
        long due = indicesPerNano > 0 ? dueLimit() : Long.MAX_VALUE;
        if (due <= first) {
            waitUntilDue(first);
            return 0;
        }
        long limit = Math.min(Math.min(end, skipBelow), due);
        long x = first;
        int emitted = 0;
        try {
            for (; emitted < max && x < limit; x = after(x)) {
                if (!emittedBefore(x)) {
                    out.emit(fn.apply(x));
                    emitted++;
                }
            }
        } finally {
            next = x;
        }
        return emitted;
    }

    /** One past the highest index that is due now. */
    private long dueLimit() {
        long elapsed = System.nanoTime() - startNanos;
        return elapsed < 0 ? 0 : (long) (elapsed * indicesPerNano) + 1;
    }

    private void waitUntilDue(long index) {
        long dueAt = startNanos + (long) (index / indicesPerNano);
        long wait = dueAt - System.nanoTime();
        if (wait > 0) {
            LockSupport.parkNanos(this, wait);
        }
    }

    @Override
    public long position() {
        return next;
    }

    @Override
    public void seek(long position) {
        if (position < 0) {
            throw new IllegalArgumentException("position must be >= 0, was " + position);
        }
        next = position;
    }
}
