/**
 * The fault-tolerance seam: what a strategy implements ({@link air.runtime.ft.FaultTolerance}:
 * none, checkpoint rollback, replication), how it says where a job's shuffles go
 * ({@link air.runtime.ft.ShuffleWiring}), and how the runtime finds the replication module
 * ({@link air.runtime.ft.ReplicationProvider}).
 *
 * <p>Why it is its own package: the job's lifecycle calls these hooks and never tests which
 * strategy runs, and replication lives in another module ({@code air-replication}) that the runtime
 * does not depend on; the strategies reach the graph builder ({@code impl.exec.JobGraph}) and the
 * checkpoint coordinator through the public members those classes keep for them.
 */
package air.runtime.ft;
