/**
 * This peer's side of a snapshot: the coordinator that collects every tasklet's part of a
 * checkpoint (captured at barrier alignment) and hands the whole part to a store off the tasklet
 * threads — a {@link air.runtime.api.CheckpointStore} for checkpoint rollback, the replica service
 * for replication — and the names of parts, which both strategies and the restore share.
 */
package air.runtime.impl.checkpoint;

