package air.test;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.operator.Operator;
import air.runtime.operator.Rescale;
import air.wire.WireIn;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Drives one {@link Operator} by hand, one call at a time, the way the engine would, and records
 * what it emits: items on an input, progress, end of input, and snapshots with a fresh instance
 * restored from them between any two calls. Modelled on Hazelcast Jet's {@code TestSupport} and
 * Flink's operator test harnesses.
 *
 * <p>Why: an end-to-end job test finds that something is wrong, seldom what; the operator sits
 * behind shuffles, inbound edges, progress modes and checkpoint alignment, and a bug in it can hide
 * behind the input the job happens to produce. Here the test chooses every item, every progress
 * step and every snapshot point, and the operator is all that runs. {@link OperatorCheck} replays
 * a script with a snapshot and restore at every position, under watermarks and under hew-meld,
 * and onto other layouts, and asserts the output never changes.
 *
 * <pre>{@code
 * OperatorHarness h = OperatorHarness.of((out, instance, instances) -> new MyOp(out));
 * h.item(0, "a").progress(10).snapshotAndRestore().item(0, "b").endOfInput();
 * h.assertOutput("a@9", "b@19");
 * }</pre>
 *
 * <p>Progress: {@link #progress(long)} calls {@link Operator#onProgress}; after
 * {@link #hewMeld(long, long, long)} it first calls {@link Operator#onEpochComplete} for every epoch
 * the step completes (in a seeded order: hew-meld completes epochs in any order), as the engine's
 * hew-meld completion does, so an operator sees the same {@code onProgress} in both modes.
 *
 * <p>Snapshots are written with {@link Operator#snapshotTo} (or {@link Operator#snapshotChangesTo})
 * and read by a fresh instance from the factory; the output and progress (which the engine keeps,
 * not the operator) carry over.
 */
public final class OperatorHarness {

    /** Builds the operator under test: instance {@code instance} of {@code instances}, emitting into {@code output}. */
    @FunctionalInterface
    public interface Factory {
        Operator create(HarnessOutput output, int instance, int instances);
    }

    private final Factory factory;
    private final int instance;
    private final int instances;
    private final HarnessOutput output = new HarnessOutput();
    private Operator operator;
    private long completeBelow = Long.MIN_VALUE;
    private long checkpoint;
    private boolean ended;
    /** Hew-meld: epochs of this length are completed before each progress step; 0 under watermarks. */
    private long epochLength;
    private long nextEpoch;
    private SplittableRandom epochOrder;

    private OperatorHarness(Factory factory, int instance, int instances) {
        this.factory = factory;
        this.instance = instance;
        this.instances = instances;
        this.operator = factory.create(output, instance, instances);
    }

    /** A harness of instance 0 of 1. */
    public static OperatorHarness of(Factory factory) {
        return new OperatorHarness(factory, 0, 1);
    }

    /** A harness of instance {@code instance} of {@code instances} (the operator may emit only what that instance owns). */
    public static OperatorHarness of(Factory factory, int instance, int instances) {
        return new OperatorHarness(factory, instance, instances);
    }

    /**
     * Instance {@code instance} of {@code instances}, restored with {@link Operator#restoreRescaled}
     * from the snapshots of every instance of an earlier layout ({@code before.get(i)}: earlier
     * instance i's whole snapshot then its changes, or null when it saved none); progress starts
     * at {@code completeBelow} (the lowest of the earlier instances, as the engine restores it).
     */
    public static OperatorHarness rescaled(Factory factory, int instance, int instances, List<List<byte[]>> before, long completeBelow) {
        OperatorHarness h = new OperatorHarness(factory, instance, instances);
        List<List<WireIn>> states = new ArrayList<>();
        for (List<byte[]> saved : before) {
            states.add(saved == null ? null : saved.stream().map(OperatorHarness::in).toList());
        }
        h.operator.restoreRescaled(new Rescale(instance, instances, states, 1));
        h.completeBelow = completeBelow;
        return h;
    }

    /**
     * Hew-meld driving from now on: each {@link #progress} step first completes every epoch of
     * length {@code epochLength} from {@code firstEpoch} (or where the last step stopped) that
     * ends at or below it, in an order drawn from {@code seed}.
     */
    public OperatorHarness hewMeld(long epochLength, long firstEpoch, long seed) {
        if (epochLength <= 0) {
            throw new IllegalArgumentException("epoch length " + epochLength);
        }
        this.epochLength = epochLength;
        this.nextEpoch = firstEpoch;
        this.epochOrder = new SplittableRandom(seed);
        return this;
    }

    /** Whether {@link #progress} completes epochs first (hew-meld), or only calls {@code onProgress} (watermarks). */
    public boolean isHewMeld() {
        return epochLength > 0;
    }

    /** A data item on input {@code input}. */
    public OperatorHarness item(int input, Object item) {
        requireRunning();
        operator.onItem(input, item);
        return this;
    }

    /** A data item on input 0. */
    public OperatorHarness item(Object item) {
        return item(0, item);
    }

    /** Hew-meld: the epoch starting at {@code epochStart} is complete (by hand; {@link #progress} does it for you after {@link #hewMeld}). */
    public OperatorHarness epochComplete(long epochStart) {
        requireRunning();
        operator.onEpochComplete(epochStart);
        return this;
    }

    /** Every input is complete below {@code below}: completes the epochs it covers under hew-meld, then {@code onProgress}. */
    public OperatorHarness progress(long below) {
        requireRunning();
        if (below < completeBelow) {
            throw new IllegalArgumentException("progress goes back: " + below + " after " + completeBelow);
        }
        if (isHewMeld() && below != Long.MAX_VALUE) {
            List<Long> epochs = new ArrayList<>();
            for (long e = nextEpoch; e <= below - epochLength; e += epochLength) {
                epochs.add(e);
            }
            if (!epochs.isEmpty()) {
                nextEpoch = epochs.get(epochs.size() - 1) + epochLength;
            }
            shuffle(epochs);
            epochs.forEach(operator::onEpochComplete);
        }
        if (below > completeBelow) {
            completeBelow = below;
            operator.onProgress(below);
        }
        return this;
    }

    private void shuffle(List<Long> epochs) {
        for (int i = epochs.size() - 1; i > 0; i--) {
            Collections.swap(epochs, i, epochOrder.nextInt(i + 1));
        }
    }

    /** Every input ended: {@code onProgress(Long.MAX_VALUE)} unless it came, then {@code onEndOfInput}. */
    public OperatorHarness endOfInput() {
        progress(Long.MAX_VALUE);
        ended = true;
        operator.onEndOfInput();
        return this;
    }

    /** No input came for a while: {@code onIdle} (processing-time timers). */
    public OperatorHarness idle() {
        requireRunning();
        operator.onIdle();
        return this;
    }

    /** The operator's whole state ({@code snapshotTo}), under the next checkpoint id. */
    public byte[] snapshot() {
        WireOut out = new WireOut(256);
        operator.snapshotTo(out, ++checkpoint);
        return out.toBytes();
    }

    /** What changed since the previous snapshot ({@code snapshotChangesTo}), or null when the operator writes whole snapshots only. */
    public byte[] snapshotChanges() {
        WireOut out = new WireOut(256);
        return operator.snapshotChangesTo(out, ++checkpoint) ? out.toBytes() : null;
    }

    /**
     * Replaces the operator with a fresh instance from the factory, restored from {@code whole}
     * ({@code restoreFrom}) and then {@code changes} in order ({@code restoreChanges}). Asserts it
     * reads each snapshot to its end.
     */
    public OperatorHarness restoreFresh(byte[] whole, List<byte[]> changes) {
        requireRunning();
        operator = factory.create(output, instance, instances);
        WireIn in = in(whole);
        operator.restoreFrom(in);
        assertThat(in.remaining()).as("bytes of the snapshot left unread by restoreFrom").isZero();
        for (byte[] c : changes) {
            WireIn ch = in(c);
            operator.restoreChanges(ch);
            assertThat(ch.remaining()).as("bytes of the changes left unread by restoreChanges").isZero();
        }
        return this;
    }

    /** A whole snapshot, and a fresh instance restored from it in place of this one. */
    public OperatorHarness snapshotAndRestore() {
        return restoreFresh(snapshot(), List.of());
    }

    private static WireIn in(byte[] bytes) {
        return new WireIn(ByteBuffer.wrap(bytes), 0);
    }

    private void requireRunning() {
        if (ended) {
            throw new IllegalStateException("the input already ended");
        }
    }

    /** The operator instance now (a fresh one after each restore). */
    public Operator operator() {
        return operator;
    }

    /** The progress the operator has been given (Long.MIN_VALUE before any). */
    public long completeBelow() {
        return completeBelow;
    }

    /** The operator's {@code outputProgress} at the progress it has been given. */
    public long outputProgress() {
        return operator.outputProgress(completeBelow);
    }

    /** The operator's {@code oldestPending} at the progress it has been given. */
    public long oldestPending() {
        return operator.oldestPending(completeBelow);
    }

    /** Everything emitted so far, across restores, oldest first. */
    public List<Emitted> output() {
        return output.emitted();
    }

    /** Everything emitted since the last call, oldest first. */
    public List<Emitted> takeOutput() {
        return output.take();
    }

    /** Asserts the output so far, as {@code item@time} strings in order ({@link Emitted#toString}). */
    public OperatorHarness assertOutput(String... expected) {
        assertThat(output().stream().map(Emitted::toString).toList()).containsExactly(expected);
        return this;
    }

    /** Asserts {@link #outputProgress()}. */
    public OperatorHarness assertOutputProgress(long expected) {
        assertThat(outputProgress()).as("outputProgress(" + completeBelow + ")").isEqualTo(expected);
        return this;
    }

    /** Asserts {@link #oldestPending()}. */
    public OperatorHarness assertOldestPending(long expected) {
        assertThat(oldestPending()).as("oldestPending(" + completeBelow + ")").isEqualTo(expected);
        return this;
    }
}
