/**
 * The checkpoint store on files, plugged into the runtime's {@link air.runtime.api.CheckpointStore}
 * SPI (found through {@code air.runtime.api.CheckpointStoreProvider} in {@code META-INF/services}).
 * A module of its own, apart from replication: checkpointing and replication are two strategies
 * that plug into the runtime separately and know nothing of each other.
 *
 * <p><b>Checkpointing and rollback.</b> The runtime aligns checkpoints on barriers that sources
 * send behind their data once per interval; every final instance waits for the barrier of every
 * producer, so each checkpoint is a consistent cut: source positions plus the state of every
 * operator and sink, with nothing in flight. {@link air.checkpoint.files.FileCheckpointStore} keeps
 * each peer's part as one file, written whole or not at all, with a checksum; a restart of the
 * job (of every peer: MPJ Express cannot replace one rank of a running world) resumes from the
 * newest checkpoint every peer completed and intact, sources replay from their positions, and
 * checkpointed sinks roll back to the same cut, so output is exactly once.
 *
 * <p>Why files, and why this layout: checkpoints must outlive the processes that wrote them; a
 * directory per checkpoint and a file per peer need no coordination beyond the file system's
 * atomic rename, which also makes a half-written file impossible to mistake for a whole one.
 */
package air.checkpoint.files;

