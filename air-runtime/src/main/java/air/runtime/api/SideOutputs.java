package air.runtime.api;

/**
 * Where a source's side outputs (its dead letters) join the job's sinks, so that they follow the
 * same rules as the sinks a pipeline writes to: refused before the job runs when the job rolls back
 * and the writer cannot; told who owns the output now (fencing); under checkpoints or replicas a
 * two-phase-commit writer commits with the job's checkpoints, and its close at the end of input is
 * held until the job's final checkpoint commits it; aborted when the job fails.
 */
public interface SideOutputs {

    /**
     * Takes {@code writer} on as one of the job's sinks and returns the writer to use in its place
     * (write, snapshot and close it as before: the engine decides when a close takes effect).
     *
     * @param owner who writes it, for messages (the source's name and call site)
     * @param what  what it is, for messages ({@code "dead letters to files(out)"})
     * @throws IllegalArgumentException when the job rolls back and {@code writer} is not a {@link CheckpointedSinkWriter}
     */
    <T> SinkWriter<T> adopt(SinkWriter<T> writer, String owner, String what);
}
