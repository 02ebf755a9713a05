/**
 * The engine's entry points: submit a physical plan with a {@link air.runtime.JobConfig}, get a
 * {@link air.runtime.Job}. Users normally reach this through the DSL; the runtime never sees the
 * DSL's syntax, only the plan.
 */
package air.runtime;

