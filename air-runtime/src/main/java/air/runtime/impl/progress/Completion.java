package air.runtime.impl.progress;

import air.runtime.plan.Progress;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.function.Function;

/**
 * When is an operator's input complete? One strategy per job, chosen when the job is built:
 * {@link WatermarkCompletion} (the minimum of the producers' low watermarks) or
 * {@link HewMeldCompletion} (epochs whose credit adds up to exactly ONE). The inbound edge feeds
 * it every progress item of every input; it tells its {@link Listener} what became complete.
 * Producers are numbered per input ({@code 0 .. producers(input) - 1}).
 */
public interface Completion {

    /** What a completion strategy reports to (the inbound edge, which tells the operator). */
    interface Listener {
        /** Hew-meld: the epoch starting at {@code epochStart} is complete on every input. */
        void onEpochComplete(long epochStart);

        /** Every input is complete below {@code completeBelow}; called only when it grows. */
        void onProgress(long completeBelow);
    }

    /** The strategy for {@code progress}, to be bound to its listener: chosen once, when the job is built. */
    static Function<Listener, Completion> of(Progress progress, String operator, long epochLength, int[] producersPerInput) {
        return switch (progress) {
            case WATERMARK -> listener -> new WatermarkCompletion(operator, producersPerInput, listener);
            case HEWMELD -> listener -> new HewMeldCompletion(operator, epochLength, producersPerInput, listener);
        };
    }

    void onWatermark(int input, int producer, long watermark);

    void onCredit(int input, int producer, long epoch, long amount);

    void onCreditRange(int input, int producer, long from, long to);

    /** The producer's first end of stream (the inbound edge drops repeated ones). */
    void onEndOfStream(int input, int producer);

    /** Everything below this is complete on every input ({@code Long.MIN_VALUE} at first). */
    long completeBelow();

    /** The oldest epoch heard of but not complete ({@code Long.MAX_VALUE} when none, or not tracked). */
    long oldestIncomplete();

    /** Producers (as {@code offset(input) + producer}) that hold {@code epoch} back. */
    int[] holders(long epoch, int[] inputOffsets);

    /** Every producer ended: a description of what is still incomplete, or null when everything completed. */
    String incompleteAtEnd();

    void snapshotTo(WireOut out);

    void restoreFrom(WireIn in);
}
