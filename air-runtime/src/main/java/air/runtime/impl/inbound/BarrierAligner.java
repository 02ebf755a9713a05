package air.runtime.impl.inbound;

import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aligns checkpoint barriers across the producers of an inbound edge (Flink's aligned
 * checkpoints, Jet's snapshot barriers): once a producer's barrier for the checkpoint being
 * aligned is in, that producer's later items wait until every producer's barrier (or end of
 * stream) is in; then the instance's state is a consistent cut and the waiting items run.
 *
 * <p>The waiting items are bounded in memory: each counts its estimated size
 * ({@link #estimatedBytes}), and an item that would take the held bytes past the bound goes to a
 * {@link SpillFile} instead, in its shuffle encoding, to be read back in its turn. The order the
 * operator sees is exactly the order without a bound. An item its codec cannot encode (a record
 * the serializer cannot write, in a job whose edges never cross peers) stays in memory past the
 * bound, with one WARN per instance.
 */
public final class BarrierAligner implements Alignment {

    private static final Logger LOG = LoggerFactory.getLogger(BarrierAligner.class);

    /** Where spill files go unless told otherwise. */
    public static final Path TEMP = Path.of(System.getProperty("java.io.tmpdir"));
    /** How many bytes one alignment may spill unless told otherwise: 8 GiB. */
    public static final long DEFAULT_SPILL_CAP = 8L << 30;

    private final long[] barrierOf;
    private final long boundBytes;
    private final IntFunction<ShuffleItemCodec> codecs;
    private final ShuffleItemCodec[] codecOf;
    private final Path spillDirectory;
    private final long spillCapBytes;
    private Held held = new Held();
    private long aligning;
    /** The estimated bytes of held items in memory, over {@link #held} and the releases not yet done. */
    private long memoryBytes;
    private long spilledItems;
    private int openSpillFiles;
    private boolean warnedUnencodable;

    /** Aligns checkpoints after {@code restoredId} (0 on a fresh start), holding items in memory without a bound. */
    public BarrierAligner(int producers, long restoredId) {
        this(producers, restoredId, Long.MAX_VALUE, null, TEMP);
    }

    /**
     * @param restoredId     the checkpoint restored (0 on a fresh start): alignment starts with the one after it
     * @param boundBytes     the estimated bytes of held items kept in memory; the rest are spilled
     * @param codecs         the codec of each producer's items, by producer number (asked at the first spill of each); null: never spill
     * @param spillDirectory where spill files are made
     */
    public BarrierAligner(int producers, long restoredId, long boundBytes, IntFunction<ShuffleItemCodec> codecs, Path spillDirectory) {
        this(producers, restoredId, boundBytes, codecs, spillDirectory, DEFAULT_SPILL_CAP);
    }

    /**
     * The same, with {@code spillCapBytes}: how many bytes one alignment may spill; past it the
     * instance fails, naming the producers it still waits for, rather than fill the disk.
     */
    public BarrierAligner(int producers, long restoredId, long boundBytes, IntFunction<ShuffleItemCodec> codecs, Path spillDirectory,
                          long spillCapBytes) {
        if (spillCapBytes < 0) {
            throw new IllegalArgumentException("alignment spill cap must be >= 0 bytes, was " + spillCapBytes);
        }
        this.spillCapBytes = spillCapBytes;
        if (boundBytes < 0) {
            throw new IllegalArgumentException("alignment bound must be >= 0 bytes, was " + boundBytes);
        }
        this.barrierOf = new long[producers];
        Arrays.fill(barrierOf, restoredId);
        this.aligning = restoredId + 1;
        this.boundBytes = boundBytes;
        this.codecs = codecs;
        this.codecOf = new ShuffleItemCodec[producers];
        this.spillDirectory = spillDirectory;
    }

    /** The estimated bytes an item holds in memory: its entries at the size of their encoding (a rough count, not a measurement). */
    public static long estimatedBytes(ShuffleItem item) {
        return ShuffleItemCodec.sizeHint(item);
    }

    @Override
    public boolean holds(ShuffleItem item) {
        if (barrierOf[item.producer()] >= aligning) {
            held.add(item);
            return true;
        }
        return false;
    }

    @Override
    public boolean isRepeat(ShuffleItem.Barrier barrier) {
        return barrier.id() <= barrierOf[barrier.producer()];
    }

    @Override
    public void onBarrier(ShuffleItem.Barrier b) {
        int p = b.producer();
        if (b.id() != barrierOf[p] + 1) {
            throw new IllegalStateException("barrier " + b.id() + " from producer " + p + " after barrier " + barrierOf[p]);
        }
        barrierOf[p] = b.id();
    }

    @Override
    public long aligned(EndOfStreamCounter ends) {
        boolean anyBarrier = false;
        for (int p = 0; p < barrierOf.length; p++) {
            if (barrierOf[p] < aligning && !ends.ended(p)) {
                return 0;
            }
            anyBarrier |= barrierOf[p] >= aligning;
        }
        return anyBarrier ? aligning : 0;
    }

    @Override
    public int heldCount() {
        return held.count;
    }

    @Override
    public long heldBytes() {
        return memoryBytes;
    }

    /** The alignment's spill would pass its cap: which producers it still waits for, and what to do. */
    private IllegalStateException overCap(SpillFile spill) {
        List<Integer> waiting = new ArrayList<>();
        for (int p = 0; p < barrierOf.length; p++) {
            if (barrierOf[p] < aligning) {
                waiting.add(p);
            }
        }
        return new IllegalStateException("barrier alignment of checkpoint " + aligning + " has spilled " + spill.bytes() + " bytes to "
                + spill.path().getParent() + ", its cap (JobConfig.alignmentSpill): producer(s) " + waiting + " have not sent that"
                + " barrier while the others' items piled up. A producer far behind (a stalled source, a slow peer) holds every"
                + " checkpoint back; find it, or raise the cap or the checkpoint interval");
    }

    /** Items spilled to disk so far (a diagnostic of this run). */
    public long spilledItems() {
        return spilledItems;
    }

    /** Spill files not yet deleted (the one filling now, and those of releases not yet done). */
    public int openSpillFiles() {
        return openSpillFiles;
    }

    @Override
    public Released releaseHeld() {
        aligning++;
        Held release = held;
        held = new Held();
        return release;
    }

    @Override
    public void close() {
        held.close();
    }

    private ShuffleItemCodec codec(int producer) {
        ShuffleItemCodec c = codecOf[producer];
        if (c == null) {
            c = codecs.apply(producer);
            codecOf[producer] = c;
        }
        return c;
    }

    /** The encoding of an item to spill, or null when it stays in memory (no codec, or its codec cannot write it). */
    private ByteBuffer encoded(ShuffleItem item) {
        if (codecs == null) {
            return null;
        }
        try {
            return SpillFile.encode(item, codec(item.producer()));
        } catch (RuntimeException e) {
            if (!warnedUnencodable) {
                warnedUnencodable = true;
                LOG.warn("barrier alignment keeps items of producer {} in memory past its bound of {} bytes: they cannot be spilled ({}); "
                        + "give the edge a codec for its records", item.producer(), boundBytes, e.toString());
            }
            return null;
        }
    }

    /** Items of a spill file, by count, between items in memory. */
    private static final class Run {
        int items;
    }

    /**
     * The items held for one checkpoint, in order: in memory while they fit the bound, otherwise
     * in its spill file (made at the first spill), as runs. Released, it hands them out once.
     */
    private final class Held implements Released, Iterator<ShuffleItem> {

        /** A {@link ShuffleItem} in memory, or a {@link Run} of the spill file's next items. */
        private final ArrayDeque<Object> entries = new ArrayDeque<>();
        private SpillFile spill;
        private int count;

        void add(ShuffleItem item) {
            long bytes = estimatedBytes(item);
            ByteBuffer encoded = memoryBytes + bytes > boundBytes ? encoded(item) : null;
            if (encoded == null) {
                entries.add(item);
                memoryBytes += bytes;
            } else {
                if (spill == null) {
                    spill = SpillFile.create(spillDirectory, barrierOf.length);
                    openSpillFiles++;
                }
                if (spill.bytes() + SpillFile.HEADER + encoded.remaining() > spillCapBytes) {
                    throw overCap(spill);
                }
                spill.append(item.producer(), encoded);
                spilledItems++;
                if (!(entries.peekLast() instanceof Run)) {
                    entries.add(new Run());
                }
                ((Run) entries.peekLast()).items++;
            }
            count++;
        }

        @Override
        public Iterator<ShuffleItem> iterator() {
            return this;
        }

        @Override
        public boolean hasNext() {
            return count > 0;
        }

        @Override
        public ShuffleItem next() {
            if (count == 0) {
                throw new NoSuchElementException();
            }
            count--;
            ShuffleItem item;
            if (entries.peekFirst() instanceof Run run) {
                if (--run.items == 0) {
                    entries.pollFirst();
                }
                item = spill.next(BarrierAligner.this::codec);
            } else {
                item = (ShuffleItem) entries.pollFirst();
                memoryBytes -= estimatedBytes(item);
            }
            if (count == 0) {
                close(); // the spill file goes as soon as its last item is out
            }
            return item;
        }

        @Override
        public void close() {
            for (Object e : entries) {
                if (e instanceof ShuffleItem item) {
                    memoryBytes -= estimatedBytes(item);
                }
            }
            entries.clear();
            count = 0;
            if (spill != null) {
                spill.close();
                spill = null;
                openSpillFiles--;
            }
        }
    }
}
