package air.runtime.api;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * What a source reader learns from the engine before its first read: which instance it is, the
 * job it belongs to, where to count what it does, and whether the job rolls back (so that
 * whatever the reader writes on the side — dead letters — must roll back with it).
 *
 * @param instance      this reader's instance, {@code 0 <= instance < parallelism}, across every peer
 * @param parallelism   the source's instances across every peer
 * @param jobName       the job's name, for messages and meters
 * @param sourceName    the source stage's name and call site, for messages
 * @param meters        the job's meter registry
 * @param exactlyOnceBecause why output must roll back with the job's state (checkpoints, replicas), or null when it need not
 * @param owner         who owns this instance's output now (a fencing token for side outputs that live in files)
 * @param sideOutputs   where a side output (dead letters) joins the job's sinks: every side writer goes through it
 */
public record SourceContext(int instance, int parallelism, String jobName, String sourceName, MeterRegistry meters,
                            String exactlyOnceBecause, OwnerToken owner, SideOutputs sideOutputs) {

    /** Whether the job rolls back on failure: side outputs must then be {@link CheckpointedSinkWriter}s. */
    public boolean exactlyOnce() {
        return exactlyOnceBecause != null;
    }
}
