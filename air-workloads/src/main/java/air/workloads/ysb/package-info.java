/**
 * The YSB-mem benchmark's data: the deterministic event generator, its record and a source for
 * AIR pipelines. It lives outside the DSL because it is a workload, not part of the API: the
 * samples run it as a job, the benchmarks' hand-written loop reads the same generator, and both
 * must see exactly the same events for the reference checksum to mean anything.
 */
package air.workloads.ysb;

