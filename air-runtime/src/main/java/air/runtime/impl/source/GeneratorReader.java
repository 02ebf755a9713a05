package air.runtime.impl.source;

import air.runtime.api.Emitter;
import air.runtime.api.SourceReader;
import air.runtime.impl.ops.PaddedOperator;
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
