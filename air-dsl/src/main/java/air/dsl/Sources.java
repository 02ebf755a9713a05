package air.dsl;

import air.runtime.api.SourceFactory;
import air.runtime.source.GeneratorSource;
import air.runtime.source.PushSource;
import air.runtime.source.SupplierSource;
import java.util.List;
import java.util.Objects;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/** Built-in sources. Parallel ones split their input by stride so every instance stays in order. */
public final class Sources {

    private Sources() {
    }

    /** The most indices of a list read in one run by one source instance: 4096 references, 16 KiB. */
    private static final long LIST_BLOCK = 4096;
    /** A list is cut into at least this many blocks, so that any parallelism gets a share of it. */
    private static final long LIST_MIN_BLOCKS = 1024;
    /** Lists shorter than this are dealt out element by element: their records stay in the caches anyway. */
    private static final long LIST_BLOCKS_FROM = 1 << 20;

    /**
     * The elements of a list, in list order per instance. A list of a million elements or more is
     * dealt out in blocks of up to 4096 elements (instance s of P reads blocks s, s+P, ...; at
     * least 1024 blocks), so that each instance reads memory of its own — split element by
     * element, every instance would load every cache line of the list — and all advance through the
     * list together; a shorter list element by element (instance s of P reads s, s+P, ...).
     */
    public static <T> SourceFactory<T> fromList(List<? extends T> items) {
        Objects.requireNonNull(items, "Sources.fromList(items): items is null");
        List<? extends T> copy = List.copyOf(items);
        // in blocks: each instance reads a run of the list's memory of its own, not every other element (GeneratorReader)
        // from the list's size alone: the same in every layout, as a resumed checkpoint needs
        long block = copy.size() < LIST_BLOCKS_FROM ? 1 : Math.min(LIST_BLOCK, copy.size() / LIST_MIN_BLOCKS);
        return new GeneratorSource<T>("list", copy.size(), i -> copy.get((int) i)).inBlocks(block);
    }

    @SafeVarargs
    @SuppressWarnings("varargs")
    public static <T> SourceFactory<T> of(T... items) {
        Objects.requireNonNull(items, "Sources.of(items): items is null");
        return fromList(List.of(items));
    }

    /** {@code generatorFn(i)} for {@code i in [0, count)}; the function must depend on {@code i} only. */
    public static <T> GeneratorSource<T> generate(long count, LongFunction<? extends T> generatorFn) {
        if (count < 0) {
            throw new IllegalArgumentException("Sources.generate(count, generatorFn): count must be >= 0, was " + count);
        }
        Objects.requireNonNull(generatorFn, "Sources.generate(count, generatorFn): generatorFn is null");
        return new GeneratorSource<>("generate", count, generatorFn);
    }

    /**
     * {@code count} records from a supplier, read by a single instance, a batch at a time: for
     * generated input. For live input the application hands over as it comes, use {@link #push}.
     */
    public static <T> SourceFactory<T> fromSupplier(long count, Supplier<? extends T> supplier) {
        if (count < 0) {
            throw new IllegalArgumentException("Sources.fromSupplier(count, supplier): count must be >= 0, was " + count);
        }
        Objects.requireNonNull(supplier, "Sources.fromSupplier(count, supplier): supplier is null");
        return new SupplierSource<>(count, supplier);
    }

    /**
     * Live input: the application calls {@link PushSource#offer} (blocking while {@code capacity}
     * records wait: backpressure) and {@link PushSource#close} at the end; the job reads whatever
     * was offered at each poll, without waiting for a full batch.
     */
    public static <T> PushSource<T> push(int capacity) {
        return new PushSource<>(capacity);
    }

}
