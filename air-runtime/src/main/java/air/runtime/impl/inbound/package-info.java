/**
 * The inbound edge: the protocols that sit between an operator's inbox and the operator, each
 * in its own class — barrier alignment ({@link air.runtime.impl.inbound.BarrierAligner}), repeat
 * filtering after a takeover ({@link air.runtime.impl.inbound.RepeatFilter}), end-of-stream
 * counting ({@link air.runtime.impl.inbound.EndOfStreamCounter}) and progress coalescing across
 * producers and inputs (a {@link air.runtime.impl.progress.Completion}), composed by
 * {@link air.runtime.impl.inbound.InboundEdge}. They are here, as in Jet's inbound edge stream and
 * Flink's barrier handler, so that operators never see a protocol: a new operator inherits every
 * progress mode and fault-tolerance strategy by implementing {@link air.runtime.operator.Operator}.
 */
package air.runtime.impl.inbound;

