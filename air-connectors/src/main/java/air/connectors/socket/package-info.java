/**
 * A socket source: lines from a TCP server, as the demos of other engines read {@code nc -lk}.
 * It is a split source with one split (the address) read by the first instance, so that bad
 * lines go through the same policy as files and Kafka. Not replayable: refused under checkpoints
 * and replicas.
 */
package air.connectors.socket;
