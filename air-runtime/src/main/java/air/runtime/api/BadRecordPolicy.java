package air.runtime.api;

import java.util.Objects;

/**
 * What happens to a record that cannot be used (it does not decode, or a user function throws on
 * it): the user's choice, never a silent loss.
 * <ul>
 *   <li>{@link #fail()} (the default): the job fails, naming the stage and the record's origin;</li>
 *   <li>{@link #skip()}: the record is dropped, counted in the meter {@code air.records.bad} (tags
 *       {@code job}, {@code operator}, {@code policy}) and logged with its origin, at most one WARN
 *       line per instance every ten seconds;</li>
 *   <li>{@link #deadLetter(SinkFactory)}: the record goes, as a {@link DeadLetter}, to a sink of its
 *       own, counted as under skip. Under checkpoints or replicas that sink must be exactly-once
 *       (a {@link CheckpointedSinkWriter}, such as {@code Sinks.files}).</li>
 * </ul>
 */
public sealed interface BadRecordPolicy {

    /** The job fails, naming the stage and the record's origin. */
    static BadRecordPolicy fail() {
        return Fail.INSTANCE;
    }

    /** Drops the record, counted and logged (rate-limited) with its origin. */
    static BadRecordPolicy skip() {
        return Skip.INSTANCE;
    }

    /** Writes the record, its origin and the error to {@code sink}; counted as under {@link #skip}. */
    static BadRecordPolicy deadLetter(SinkFactory<? super DeadLetter> sink) {
        return new DeadLetters(Objects.requireNonNull(sink, "BadRecordPolicy.deadLetter(sink): sink is null"));
    }

    /** The policy's name in meters and logs: {@code fail}, {@code skip}, {@code dead-letter}. */
    String label();

    /** See {@link #fail()}. */
    enum Fail implements BadRecordPolicy {
        INSTANCE;

        @Override
        public String label() {
            return "fail";
        }
    }

    /** See {@link #skip()}. */
    enum Skip implements BadRecordPolicy {
        INSTANCE;

        @Override
        public String label() {
            return "skip";
        }
    }

    /** See {@link #deadLetter}. */
    record DeadLetters(SinkFactory<? super DeadLetter> sink) implements BadRecordPolicy {
        @Override
        public String label() {
            return "dead-letter";
        }
    }
}
