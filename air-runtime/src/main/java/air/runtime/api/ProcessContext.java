package air.runtime.api;

/**
 * What a {@link KeyedProcessFunction} sees while it handles one record or one timer: the key, the
 * time, the key's state, its timers and where its output goes. Valid only during that call.
 *
 * <p><b>Event time of outputs.</b> An output emitted while handling a record carries the record's
 * event time; one emitted from an event-time timer carries the timer's time. Neither is ever
 * behind what the operator already told downstream is complete: a late record's (or an overdue
 * timer's) outputs carry that point instead. A processing-time timer's outputs carry the newest
 * event time the operator instance has reached (on a stream without timestamps: none).
 *
 * @param <K> the key type
 * @param <O> the type of the main output
 */
public interface ProcessContext<K, O> {

    /** The event time of a record or timer that has none (a stream without {@code withTimestamps}). */
    long NO_TIMESTAMP = Long.MIN_VALUE;

    /** The key of the record or timer being handled. */
    K key();

    /**
     * The event time of the record being handled, or of the event-time timer firing. In a
     * processing-time timer: the newest event time this operator instance has reached (the time its
     * outputs carry); the timer's own time is {@code onTimer}'s {@code time} argument.
     * {@link #NO_TIMESTAMP} on a stream without timestamps.
     */
    long timestamp();

    /** Everything with an event time at or below this has arrived (the operator's input watermark); {@code Long.MIN_VALUE} at first. */
    long currentWatermark();

    /** The job's processing time ({@link TimeSource#currentTimeMillis()}). */
    long currentProcessingTime();

    /** The current key's state declared by {@code descriptor}, which must be one of those given to {@code process(...)}. */
    <S> S state(StateDescriptor<S> descriptor);

    /** Emits one record to the main output; call it any number of times. */
    void emit(O output);

    /**
     * Emits one record to the side output {@code tag} (not null). A tag is declared by reading it:
     * {@code processed.sideOutput(tag)} on this process stage; outputs to a tag that no stage reads
     * are dropped.
     */
    <X> void output(OutputTag<X> tag, X value);

    /**
     * Calls {@code onTimer} for the current key once the input is complete past {@code time}
     * (its watermark above it). One timer per key and time: registering it again changes nothing,
     * and so does a timer registering its own time from its {@code onTimer} (it has fired for that
     * time). Needs event timestamps ({@code withTimestamps} before {@code keyBy}).
     */
    void registerEventTimeTimer(long time);

    /** Removes the current key's event-time timer at {@code time}, if any. */
    void deleteEventTimeTimer(long time);

    /**
     * Calls {@code onTimer} for the current key once the job's processing time reaches
     * {@code time} (milliseconds of {@link TimeSource#currentTimeMillis()}); one timer per key and time.
     * A timer registering its own time again from its {@code onTimer} changes nothing; one registered
     * from an {@code onTimer} for a time already reached fires at the operator's next look at the
     * clock (its next batch, progress step or idle wake-up), not in the round that registered it.
     */
    void registerProcessingTimeTimer(long time);

    /** Removes the current key's processing-time timer at {@code time}, if any. */
    void deleteProcessingTimeTimer(long time);
}
