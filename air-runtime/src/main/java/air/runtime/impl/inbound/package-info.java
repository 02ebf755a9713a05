/**
 * The inbound edge: the protocols that sit between an operator's inbox and the operator, each
 * in its own class — barrier alignment ({@link air.runtime.impl.inbound.BarrierAligner}), repeat
 * filtering after a takeover ({@link air.runtime.impl.inbound.RepeatFilter}), end-of-stream
 * counting ({@link air.runtime.impl.inbound.EndOfStreamCounter}) and progress coalescing across
 * producers and inputs (a {@link air.runtime.impl.progress.Completion}), composed by
 * {@link air.runtime.impl.inbound.InboundEdge}. They are here, as in Jet's inbound edge stream and
 * Flink's barrier handler, so that operators never see a protocol: a new operator inherits every
 * progress mode and fault-tolerance strategy by implementing {@link air.runtime.operator.Operator}.
 *
 * <p><b>Bounded alignment memory.</b> While a checkpoint is aligned, the items of the producers
 * whose barrier is in wait for the others' barriers; a slow producer (a slow source, a lagging
 * peer) could make them pile up without limit. They are bounded in bytes
 * ({@code JobConfig.alignmentBufferBytes}, estimated from each item's entries): what does not fit
 * goes to a {@link air.runtime.impl.inbound.SpillFile} in its shuffle encoding and is read back in
 * its turn once the barrier is aligned, as Flink's aligner spilled before it had per-channel
 * credit. Backpressure on the producers past the barrier, the other way, is not possible here
 * without a deadlock: an instance's producers share one inbox queue (and the items from other
 * peers one receiving thread per edge), so the missing barrier can sit behind the very items that
 * would be refused; the intake must go on. Unaligned checkpoints or abandoning the checkpoint
 * would change the checkpoint format and the coordinator. Spilling changes nothing the operator
 * sees — the same items in the same order, the checkpoint captured at the same point — so exactly
 * once holds as before; the cost of a slow barrier moves from the heap to the disk.
 */
package air.runtime.impl.inbound;
