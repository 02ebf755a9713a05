/**
 * Per-record work: the fused operators of a chain ({@code MapOp}, {@code FilterOp},
 * {@code FlatMapOp}, {@code TimestampOp} and its per-split twin {@code SplitTimestampOp},
 * {@code SinkOp}), the two halves of a window aggregation ({@code PartialWindowOp} at the end of
 * the upstream chain, {@code FinalWindowOp} behind the shuffle, an
 * {@link air.runtime.operator.Operator}) and their keyed frames. The items they send and receive
 * are the data plane's ({@code impl.shuffle}).
 *
 * <p>Why one package: it is what the JIT flags force-inline ({@link air.runtime.JvmFlags#OPERATOR_PACKAGE}),
 * so a chain compiles into one loop in which records never reach the heap; a layering test keeps
 * every per-record class here. Each job gets its own copies of these classes so that call sites
 * stay monomorphic however many pipelines the JVM has run — hence interfaces such as
 * {@code ChainTail} instead of {@code instanceof} on classes. Nothing here knows the progress mode,
 * the routing or a protocol: those are strategies handed in ({@code impl.progress},
 * {@code impl.routing}) or handled in front of the operator ({@code impl.inbound}).
 */
package air.runtime.impl.ops;

