/**
 * Fault tolerance (checkpoints and rollback, replicas), plugged into the runtime. Empty until the
 * fault-tolerance work lands; the runtime already keeps source positions as plain numbers and
 * keyed state in maps so that both can be snapshotted.
 */
package air.replication;
