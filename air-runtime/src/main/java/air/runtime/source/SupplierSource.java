package air.runtime.source;

import air.runtime.api.Emitter;
import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import air.runtime.impl.source.SupplierReader;
import java.util.Objects;
import java.util.function.Supplier;

/** {@code count} records from a supplier, called on one instance only (a supplier is not thread-safe). */
public final class SupplierSource<T> implements SourceFactory<T> {

    private final long count;
    private final Supplier<? extends T> supplier;

    public SupplierSource(long count, Supplier<? extends T> supplier) {
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0, was " + count);
        }
        this.count = count;
        this.supplier = Objects.requireNonNull(supplier, "supplier is null");
    }

    @Override
    public SourceReader<T> createReader(int instance, int parallelism) {
        if (instance == 0) {
            return new SupplierReader<>(supplier, count);
        }
        return new SourceReader<>() {
            @Override public int read(int max, Emitter<? super T> out) { return EXHAUSTED; }
            @Override public long position() { return 0; }
            @Override public void seek(long position) { }
        };
    }

    @Override
    public String describe() {
        return "supplier(" + count + ")";
    }

    @Override
    public String notReplayableBecause() {
        return "Sources.fromSupplier(count, supplier) calls the supplier once per record and cannot call it again for what it "
                + "returned before; use Sources.generate(count, i -> ...), whose function of the index replays, or run without "
                + "checkpoints and replicas";
    }
}
