/**
 * Publishing {@link air.runtime.JobEvent}s: the engine's components (job start and end, recovery,
 * the checkpoint writer, replication, takeover) each publish what they log through one
 * {@link air.runtime.impl.event.JobEvents} per job, so that programs steering peers can rely on
 * typed events instead of matching log lines, which may be reworded at any time.
 */
package air.runtime.impl.event;

