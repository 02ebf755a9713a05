/**
 * Running a job: the plan instantiated ({@link air.runtime.impl.exec.JobGraph}: per vertex
 * instance a fused chain of per-job operator class copies and a tasklet on its own virtual
 * thread), the queues between tasklets ({@link air.runtime.impl.shuffle.Inbox}: bounded, parking, one
 * wake-up per batch), the job's lifecycle ({@link air.runtime.impl.exec.RunningJob}) and the
 * fault-tolerance strategy it chose once ({@code air.runtime.ft.FaultTolerance}: none, checkpoint rollback,
 * replicated state with takeover).
 *
 * <p>Why it is separate from the operators: tasklets own threads, queues, restores and
 * cancellation; operators ({@code impl.ops}) own only per-record work. Keeping threads out of the
 * operator package keeps every per-record class small enough for the JIT to fuse a chain into one
 * loop (see {@link air.runtime.JvmFlags}).
 */
package air.runtime.impl.exec;

