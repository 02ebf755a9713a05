/**
 * The transport between peers (cluster mode): peers, frames on channels, one MPJ conductor per
 * transport. Empty until cluster mode lands; the embedded multicore mode needs no transport,
 * its edges are in-memory queues inside the runtime.
 */
package air.channels;
