package air.runtime.impl.source;

import air.runtime.api.Emitter;
import air.runtime.api.SourceReader;
import java.util.function.Supplier;

/** Emits {@code supplier.get()} {@code count} times on one instance. Not replayable beyond its position. */
public final class SupplierReader<T> implements SourceReader<T> {

    private final Supplier<? extends T> supplier;
    private final long count;
    private long emitted;

    public SupplierReader(Supplier<? extends T> supplier, long count) {
        this.supplier = supplier;
        this.count = count;
    }

    @Override
    public int read(int max, Emitter<? super T> out) {
        if (emitted >= count) {
            return EXHAUSTED;
        }
        long limit = Math.min(count, emitted + max);
        long first = emitted;
        while (emitted < limit) {
            T item = supplier.get();
            if (item == null) {
                throw new NullPointerException("supplier returned null at position " + emitted);
            }
            out.emit(item);
            emitted++;
        }
        return (int) (emitted - first);
    }

    @Override
    public long position() {
        return emitted;
    }

    @Override
    public void seek(long position) {
        if (position != emitted) {
            throw new IllegalStateException("a supplier source cannot seek from " + emitted + " to " + position
                    + ": it has no replayable position; use a generator source");
        }
    }
}
