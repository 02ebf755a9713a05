package air.test;

import air.runtime.api.SourceFactory;
import air.runtime.api.Timestamped;
import air.runtime.source.GeneratorSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A test source of records with their event times, in the order given (out of order on purpose
 * if the test wants it): {@code TestEvents.<String>create().at(1_000, "a").at(12_000, "b").source()},
 * then {@code .withTimestamps(Timestamped::timestamp, disorderMs)} in the pipeline. Replayable (a
 * list), so it works with checkpoints and with several workers (instance s of P reads records
 * s, s+P, ...).
 */
public final class TestEvents<T> {

    private final List<Timestamped<T>> events = new ArrayList<>();

    private TestEvents() {
    }

    public static <T> TestEvents<T> create() {
        return new TestEvents<>();
    }

    /** Adds {@code value} at event time {@code timestampMs}. */
    public TestEvents<T> at(long timestampMs, T value) {
        events.add(new Timestamped<>(timestampMs, Objects.requireNonNull(value, "TestEvents.at(timestampMs, value): value is null")));
        return this;
    }

    /** The events so far, in the order added. */
    public List<Timestamped<T>> events() {
        return List.copyOf(events);
    }

    /** A source of the events added so far. */
    public SourceFactory<Timestamped<T>> source() {
        List<Timestamped<T>> copy = List.copyOf(events);
        return new GeneratorSource<>("test-events", copy.size(), i -> copy.get((int) i));
    }
}
