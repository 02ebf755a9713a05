/**
 * Apache Kafka for AIR jobs: {@link air.kafka.KafkaSources} reads a topic, a split per partition
 * (on the engine's split source SPI, {@link air.runtime.source.split}), and {@link air.kafka.KafkaSinks}
 * writes one, at least once or exactly once.
 *
 * <p><b>Why offsets live in the engine's snapshots, not in Kafka's consumer groups.</b> The
 * position of every partition, the offset of the next record to read, is part of the source
 * instance's state: it is captured at the checkpoint barrier together with every operator's state,
 * and a rollback or a restore, on this layout or another, puts back both at once. The source
 * therefore rewinds to exactly the record after the last one the checkpoint covers: nothing lost,
 * and nothing counted twice by the operators' state. Offsets committed to a group would be taken at
 * another moment than the rest of the state (before or after the barrier) and could not be rolled
 * back with it, and a group's rebalances would move partitions behind the engine's back. So the
 * readers use {@code assign} and {@code seek}, never {@code subscribe}, and commit nothing; every
 * peer lists the same partitions and partition {@code N} is read by instance
 * {@code N mod parallelism}, the same on every peer, without a coordinator.
 *
 * <p>The at-least-once sink flushes its producer at every checkpoint, so a checkpoint never counts a record the
 * brokers have not acknowledged; records replayed after a rollback are written again (at least
 * once, see {@link air.kafka.KafkaSink}).
 *
 * <p>The exactly-once sink ({@link air.kafka.KafkaExactlyOnceSink}) writes the records between two
 * checkpoints in a Kafka transaction, flushed at the checkpoint (the pre-commit) and committed once
 * the checkpoint is complete on every peer, together with a commit marker (the checkpoint's number,
 * as an offset in a consumer group of the sink's own) that tells a restore which pre-committed
 * transactions were committed; the state keeps the records of the others, which a restore writes
 * again. A {@code read_committed} consumer sees every record of the job once.
 */
package air.kafka;
