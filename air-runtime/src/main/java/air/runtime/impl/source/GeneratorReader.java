package air.runtime.impl.source;

import air.runtime.api.Emitter;
import air.runtime.api.SourceReader;
import air.runtime.impl.ops.PaddedOperator;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;

/**
 * Emits {@code fn(i)} for the indices {@code first, first + stride, ... < end}; optionally paced so
 * that index {@code i} is not emitted before {@code startNanos + i / rate} seconds. Its position is
 * the next index, so a replay after {@code seek} is exact.
 */
public final class GeneratorReader<T> extends PaddedOperator implements SourceReader<T> {

    private final LongFunction<? extends T> fn;
    private final long stride;
    private final long end;
    private final long startNanos;
    private final double indicesPerNano;
    private long next;
    /** Resumed onto another layout: the earlier layouts' positions, and the index from which they emitted nothing. */
    private List<long[]> before = List.of();
    private long skipBelow = Long.MIN_VALUE;

    public GeneratorReader(LongFunction<? extends T> fn, long first, long stride, long end, long startNanos, long ratePerSecond) {
        this.fn = fn;
        this.next = first;
        this.stride = stride;
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
        long count = Math.min(max, (end - i + stride - 1) / stride);
        if (indicesPerNano > 0) {
            long due = dueLimit();
            if (due <= i) {
                waitUntilDue(i);
                return 0;
            }
            count = Math.min(count, (due - i + stride - 1) / stride);
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
            for (int k = 0; k < count; k++, i += stride) {
                out.emit(fn.apply(i));
            }
        } finally {
            next = i;
        }
    }

    /**
     * Earlier layouts' readers emitted index {@code x} when it was below the position of the one
     * whose share it was ({@code x mod} its parallelism): one earlier layout, or several after
     * several restores onto other layouts, oldest first.
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
        long first = Math.floorMod(next, stride);
        long start = Math.max(next, allBelow);
        next = start + Math.floorMod(first - start, stride);
    }

    private boolean emittedBefore(long x) {
        for (long[] layout : before) {
            if (x < layout[(int) Math.floorMod(x, (long) layout.length)]) {
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
            for (; emitted < max && x < limit; x += stride) {
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
