/**
 * The operator SPI: what a stateful operator with one or more inputs implements so that it runs
 * under every progress mode (watermarks, hew-meld), every routing (KEY, AIR), every fault-tolerance
 * strategy (none, checkpoints, replication) and in cluster mode without knowing any of them.
 *
 * <p>It exists because the first engine added each mode as a branch in the window operators and
 * their tasklet: every new operator would have had to repeat those branches. Here the inbound edge
 * (barrier alignment, repeat filtering, end-of-stream counting, progress coalescing) and the
 * strategies sit below the operator, and the operator sees only data, progress and its state.
 */
package air.runtime.operator;

