/**
 * What the benchmark scripts run besides the engine: the hand-written YSB-mem loop every engine
 * figure is a ratio against (it writes its output too, so that each engine run can be checked
 * against it), the frame-throughput comparison of the transports against raw MPJ Express, and the
 * JMH hand-off benchmark. Benchmarks may use internals; nothing depends on them.
 */
package air.benchmarks;

