package air.runtime.impl.ops;

/** What travels on a shuffle edge: per-frame partial aggregates and progress markers. */
public sealed interface ShuffleItem permits FramePartial, ShuffleItem.Watermark, ShuffleItem.EndOfStream {

    /** The index of the upstream instance that sent it: one FIFO channel per producer. */
    int producer();

    record Watermark(int producer, long watermark) implements ShuffleItem { }

    record EndOfStream(int producer) implements ShuffleItem { }
}
