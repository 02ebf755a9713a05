package air.runtime.impl.source;

import air.runtime.api.BadRecordPolicy;
import air.runtime.api.CheckpointedSourceReader;
import air.runtime.api.Emitter;
import air.runtime.api.SourceContext;
import air.runtime.impl.ops.SplitCursor;
import air.runtime.source.split.SplitContext;
import air.runtime.source.split.SplitReader;
import air.runtime.source.split.Splits;
import air.wire.WireIn;
import air.wire.WireOut;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One instance of a {@link air.runtime.source.split.SplitSource}: owns the splits that
 * {@link Splits#ownerOf} gives it, opens each when its turn first comes, and reads them in turn, one
 * split per call, so that a split with a backlog does not keep the others waiting. Looks for new
 * splits every discovery interval. Its state is every owned split's position (or that it is
 * finished) and the dead-letter writer's state. It tells its {@link SplitCursor} which split it
 * reads before each read and which splits it owns, so that event time can be kept per split.
 */
public final class SplitSourceReader<T> implements CheckpointedSourceReader<T>, SplitContext {

    private static final Logger LOG = LoggerFactory.getLogger(SplitSourceReader.class);
    private static final int STATE_VERSION = 1;

    private final Splits<T> splits;
    private final BadRecordPolicy policy;
    private final int instance;
    private final int parallelism;
    private final long discoveryNanos;
    /** Every split this instance owns and has heard of, finished ones too (so that a rescale never reads one again). */
    private final Map<String, Owned<T>> owned = new LinkedHashMap<>();
    /** The unfinished owned splits, in turn. */
    private final ArrayDeque<Owned<T>> turn = new ArrayDeque<>();
    private String sourceName;
    private BadRecords badRecords;
    private boolean discovered;
    private long nextDiscoveryNanos;
    private long emitted;
    private Owned<T> current;
    /** Which split the records come from, for per-split event time; one of its own unless the engine gives one. */
    private SplitCursor cursor = new SplitCursor();

    /** One owned split: its position while closed, its reader while open. */
    private static final class Owned<T> {
        final String id;
        /** Its index in the cursor: -1 for a split adopted finished, which is never read. */
        int index = -1;
        byte[] position;
        boolean finished;
        SplitReader<T> reader;

        Owned(String id, byte[] position, boolean finished) {
            this.id = id;
            this.position = position;
            this.finished = finished;
        }

        byte[] positionNow() {
            return reader != null ? reader.position() : position;
        }
    }

    public SplitSourceReader(Splits<T> splits, BadRecordPolicy policy, int instance, int parallelism) {
        this.splits = splits;
        this.policy = policy;
        this.instance = instance;
        this.parallelism = parallelism;
        this.discoveryNanos = splits.discoveryInterval().toNanos();
        this.sourceName = splits.describe();
        this.badRecords = new BadRecords(policy, sourceName);
    }

    /**
     * Tells {@code splits} which split each read's records come from and which splits this
     * instance owns: called by the engine once, before the reader is opened, when the source's
     * chain keeps event time per split.
     */
    public void trackSplits(SplitCursor splits) {
        if (!owned.isEmpty()) {
            throw new IllegalStateException(sourceName + ": splits are tracked from before the first split");
        }
        this.cursor = splits;
    }

    @Override
    public void open(SourceContext context) {
        sourceName = context.sourceName();
        badRecords = new BadRecords(policy, sourceName);
        badRecords.open(context);
    }

    @Override
    public int read(int max, Emitter<? super T> out) {
        if (!discovered || (discoveryNanos > 0 && System.nanoTime() >= nextDiscoveryNanos)) {
            discover();
        }
        for (int tries = turn.size(); tries > 0; tries--) {
            Owned<T> split = turn.poll();
            current = split;
            cursor.reading(split.index);
            int n = readSplit(split, max, out);
            if (n == SplitReader.FINISHED) {
                finish(split);
                continue;
            }
            turn.add(split);
            if (n > 0) {
                emitted += n;
                return n;
            }
        }
        return discoveryNanos == 0 && turn.isEmpty() ? EXHAUSTED : 0;
    }

    private int readSplit(Owned<T> split, int max, Emitter<? super T> out) {
        try {
            if (split.reader == null) {
                split.reader = splits.open(split.id, split.position, this);
            }
            return split.reader.read(max, out);
        } catch (IOException e) {
            throw new UncheckedIOException(sourceName + ": cannot read split " + split.id + " at " + originOf(split) + ": " + e, e);
        }
    }

    private String originOf(Owned<T> split) {
        return split.reader != null ? split.reader.origin() : split.id;
    }

    private void finish(Owned<T> split) {
        split.position = split.reader.position();
        split.finished = true;
        cursor.ended(split.index);
        closeQuietly(split);
    }

    private void discover() {
        List<String> ids;
        try {
            ids = splits.discover();
        } catch (IOException | RuntimeException e) {
            if (!discovered) {
                throw new IllegalStateException(sourceName + ": cannot list its splits: " + e, e);
            }
            LOG.warn("{}: cannot list its splits now ({}); trying again in {} ms", sourceName, e.toString(), discoveryNanos / 1_000_000);
            nextDiscoveryNanos = System.nanoTime() + discoveryNanos;
            return;
        }
        for (String id : ids) {
            if (!owned.containsKey(id) && splits.ownerOf(id, parallelism) == instance) {
                Owned<T> split = new Owned<>(id, null, false);
                split.index = cursor.add(id);
                owned.put(id, split);
                turn.add(split);
                if (discovered) {
                    LOG.info("{}: instance {} found a new split {}", sourceName, instance, id);
                }
            }
        }
        discovered = true;
        nextDiscoveryNanos = System.nanoTime() + discoveryNanos;
    }

    @Override
    public void badRecord(String origin, byte[] raw, Exception cause) {
        badRecords.onBadRecord(origin, raw, cause);
    }

    @Override
    public String sourceName() {
        return sourceName;
    }

    /** Records skipped or dead-lettered by this instance. */
    public long badRecordCount() {
        return badRecords.count();
    }

    @Override
    public byte[] snapshotState(long checkpointId) {
        WireOut w = new WireOut(64 + 48 * owned.size());
        w.putInt(STATE_VERSION).putInt(owned.size());
        for (Owned<T> split : owned.values()) {
            byte[] p = split.positionNow();
            w.putString(split.id).putByte(split.finished ? 1 : 0).putByte(p == null ? 0 : 1);
            if (p != null) {
                w.putBytes(p);
            }
        }
        byte[] dead = badRecords.snapshot(checkpointId);
        w.putByte(dead == null ? 0 : 1);
        if (dead != null) {
            w.putBytes(dead);
        }
        return w.toBytes();
    }

    /** A state read back: the splits and the dead-letter writer's state. */
    private record Saved(List<String> ids, List<byte[]> positions, List<Boolean> finished, byte[] deadLetters) {
    }

    private Saved read(byte[] state) {
        WireIn in = new WireIn(ByteBuffer.wrap(state), -1);
        int version = in.getInt();
        if (version != STATE_VERSION) {
            throw new IllegalStateException(sourceName + ": a saved state of version " + version + ", this reader reads " + STATE_VERSION);
        }
        int n = in.getCount(3);
        List<String> ids = new ArrayList<>(n);
        List<byte[]> positions = new ArrayList<>(n);
        List<Boolean> finished = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ids.add(in.getString());
            finished.add(in.getByte() == 1);
            positions.add(in.getByte() == 1 ? in.getBytes() : null);
        }
        byte[] dead = in.getByte() == 1 ? in.getBytes() : null;
        return new Saved(ids, positions, finished, dead);
    }

    @Override
    public void restoreState(byte[] state) {
        Saved saved = read(state);
        forgetAll();
        for (int i = 0; i < saved.ids().size(); i++) {
            adopt(saved.ids().get(i), saved.positions().get(i), saved.finished().get(i));
        }
        badRecords.restore(saved.deadLetters());
    }

    @Override
    public void restoreRescaled(long checkpointId, List<byte[]> earlierInstances) {
        forgetAll();
        List<List<byte[]>> deadLetters = new ArrayList<>();
        for (int i = 0; i < earlierInstances.size(); i++) {
            byte[] state = earlierInstances.get(i);
            if (state == null) {
                continue;
            }
            Saved saved = read(state);
            for (int k = 0; k < saved.ids().size(); k++) {
                String id = saved.ids().get(k);
                if (splits.ownerOf(id, parallelism) == instance) {
                    adopt(id, saved.positions().get(k), saved.finished().get(k));
                }
            }
            if (i % parallelism == instance && saved.deadLetters() != null) {
                deadLetters.add(List.of(saved.deadLetters()));
            }
        }
        badRecords.restoreRescaled(checkpointId, deadLetters);
    }

    private void adopt(String id, byte[] position, boolean finished) {
        Owned<T> split = new Owned<>(id, position, finished);
        if (owned.putIfAbsent(id, split) != null) {
            throw new IllegalStateException(sourceName + ": split " + id + " was saved by two instances: the listing did not agree");
        }
        if (!finished) {
            split.index = cursor.add(id);
            turn.add(split);
        }
    }

    private void forgetAll() {
        for (Owned<T> split : owned.values()) {
            closeQuietly(split);
            if (split.index >= 0) {
                cursor.ended(split.index);
            }
        }
        owned.clear();
        turn.clear();
        current = null;
    }

    @Override
    public long position() {
        return emitted;
    }

    @Override
    public String describePosition() {
        Owned<T> c = current;
        return c == null ? "before its first split" : "the record at " + originOf(c);
    }

    @Override
    public void close() {
        for (Owned<T> split : owned.values()) {
            closeQuietly(split);
        }
        badRecords.close();
    }

    @Override
    public void abort() {
        for (Owned<T> split : owned.values()) {
            closeQuietly(split);
        }
        badRecords.abort();
    }

    private void closeQuietly(Owned<T> split) {
        if (split.reader == null) {
            return;
        }
        split.position = split.reader.position();
        try {
            split.reader.close();
        } catch (IOException | RuntimeException e) {
            LOG.warn("{}: closing split {}: {}", sourceName, split.id, e.toString());
        }
        split.reader = null;
    }
}
