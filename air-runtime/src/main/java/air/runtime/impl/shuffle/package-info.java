/**
 * The data plane: what flows between operator instances and how it gets there. The shuffle item
 * family ({@code ShuffleItem}: record batches, frame partials, watermarks, credit, barriers and
 * ends), its codec, the output a producer sends through ({@code ShuffleOutput}: into local inboxes,
 * or across peers as {@code DataChannel} frames), the bounded inboxes a consumer takes from, and
 * what a router asks of a frame ({@code DrainableFrame}).
 *
 * <p>Why a package of its own: it sits below the operators, the routings, the progress modes and
 * the executor, and knows none of them, so that each of those imports it and none imports another
 * to reach the data (before, these types lived in the operator package and every layer below the
 * operators reached back up into it). The classes that run per record here are force-inlined
 * with the operators ({@code air/runtime/jit-flags}).
 */
package air.runtime.impl.shuffle;
