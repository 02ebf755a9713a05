package air.runtime.impl.ops;

import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleOutput;

/**
 * The shuffle output an upserting window's partial half ships its updates through: marks every
 * partial the router sends as a {@link FrameAccumulators#PREVIEW} or {@link FrameAccumulators#LATE} update
 * of the given version, so that routing ({@code WindowRouter}) stays the plain window's.
 */
final class UpdateOutput implements ShuffleOutput {

    private final ShuffleOutput out;
    private final byte kind;
    private long version;

    UpdateOutput(ShuffleOutput out, byte kind) {
        this.out = out;
        this.kind = kind;
    }

    /** This output, marking what it sends next with {@code version}. */
    UpdateOutput at(long version) {
        this.version = version;
        return this;
    }

    @Override
    public int producer() {
        return out.producer();
    }

    @Override
    public int destinations() {
        return out.destinations();
    }

    @Override
    public void send(int destination, ShuffleItem item) {
        if (!(item instanceof FrameAccumulators p)) {
            throw new IllegalStateException("only partials go out as window updates, not " + item);
        }
        p.kind = kind;
        p.version = version;
        out.send(destination, p);
    }
}
