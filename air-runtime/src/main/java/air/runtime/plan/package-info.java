/**
 * The physical plan: what the DSL's planner produces and the runtime executes. Fused vertices
 * (head, stateless chain, tail) joined by shuffles. It is pure data so that it can be printed,
 * compared between peers and tested without running anything.
 */
package air.runtime.plan;

