package air.runtime.impl.shuffle;

/** What travels on a shuffle edge: per-frame partial aggregates or batches of records, and progress markers. */
public sealed interface ShuffleItem permits FrameAccumulators, RecordBatch, ShuffleItem.Watermark, ShuffleItem.EndOfStream,
        ShuffleItem.Credit, ShuffleItem.CreditRange, ShuffleItem.Barrier {

    /** The index of the upstream instance that sent it: one FIFO channel per producer. */
    int producer();

    record Watermark(int producer, long watermark) implements ShuffleItem { }

    record EndOfStream(int producer) implements ShuffleItem { }

    /** Hew-meld: the producer's credit for one epoch, sent after that epoch's data. */
    record Credit(int producer, long epoch, long amount) implements ShuffleItem { }

    /** Hew-meld: the producer's whole share of every epoch in {@code [from, to)}, for which it had no data. */
    record CreditRange(int producer, long from, long to) implements ShuffleItem { }

    /** Checkpointing: everything the producer sent before this belongs to checkpoint {@code id}, nothing after. */
    record Barrier(int producer, long id) implements ShuffleItem { }
}
