/**
 * Sources as sets of splits, for connectors to data that lives elsewhere: a Kafka partition, a
 * file, a byte range. The engine has no master to hand splits out, so assignment is a pure
 * function: every peer lists the same splits ({@link air.runtime.source.split.Splits#discover})
 * and computes the same owner for each ({@link air.runtime.source.split.Splits#ownerOf}) from the
 * split's id and the number of instances. A takeover moves an instance, and its splits with it;
 * a restore onto another layout pools every earlier instance's split positions and each new
 * instance takes the splits it owns now — nothing is read twice, nothing skipped. A split's
 * position is opaque bytes of the connector's choosing, kept in the engine's checkpoints and
 * replica copies; new splits found while running start at their beginning on their owner.
 *
 * <p>Event time is kept per split: a {@code withTimestamps} in the source's chain judges a record
 * late against its own split's newest timestamp, and the instance's watermark is the least over
 * its unfinished, non-idle splits, so splits in event-time order lose nothing when one is read
 * ahead of another.
 *
 * <p>The shape follows Flink's FLIP-27 split between listing work and reading it, without its
 * enumerator on a coordinator: here the listing runs on every instance and must agree.
 */
package air.runtime.source.split;
