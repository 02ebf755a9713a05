package air.runtime.source.split;

import air.runtime.api.BadRecordPolicy;
import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import air.runtime.impl.source.SplitSourceReader;
import java.util.Objects;

/**
 * A source over {@link Splits}: each instance reads the splits it owns, in turn, a batch at a
 * time, and keeps every split's position in the job's checkpoints and replica copies. Replayable
 * whenever the connector's positions are.
 */
public final class SplitSource<T> implements SourceFactory<T> {

    private final Splits<T> splits;
    private final BadRecordPolicy badRecords;

    public SplitSource(Splits<T> splits, BadRecordPolicy badRecords) {
        this.splits = Objects.requireNonNull(splits, "splits");
        this.badRecords = Objects.requireNonNull(badRecords, "badRecords");
    }

    /** The connector. */
    public Splits<T> splits() {
        return splits;
    }

    /** What happens to a record that does not decode. */
    public BadRecordPolicy badRecords() {
        return badRecords;
    }

    @Override
    public SourceReader<T> createReader(int instance, int parallelism) {
        return new SplitSourceReader<>(splits, badRecords, instance, parallelism);
    }

    @Override
    public String notReplayableBecause() {
        return splits.notReplayableBecause();
    }

    @Override
    public String describe() {
        return splits.describe();
    }
}
