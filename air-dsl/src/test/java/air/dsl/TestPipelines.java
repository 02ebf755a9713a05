package air.dsl;

import air.runtime.JobConfig;

/** Small helpers shared by the DSL tests. */
final class TestPipelines {

    private TestPipelines() {
    }

    /**
     * A small, fast configuration: tiny batches so that several batches and watermarks flow, and a
     * watermark after every batch so that no result depends on the wall clock.
     */
    static JobConfig config(int workers) {
        return JobConfig.defaults().name("test").workers(workers).batchSize(3).queueCapacity(4).watermarkIntervalMs(0);
    }

    /** A timestamped test record. */
    record Event(String key, long time, long value) { }

    /**
     * What counting records {@code 0 .. n-1} (each its own timestamp) per window and key
     * {@code i % keys} must give: "[start,end) key" to count.
     */
    static java.util.Map<String, Long> expectedCounts(long n, long keys, air.runtime.api.WindowDefinition window) {
        java.util.Map<String, Long> counts = new java.util.TreeMap<>();
        for (long i = 0; i < n; i++) {
            for (long start = Math.floorDiv(i, window.slide()) * window.slide(); start > i - window.size(); start -= window.slide()) {
                counts.merge("[" + start + "," + (start + window.size()) + ") " + (i % keys), 1L, Long::sum);
            }
        }
        return counts;
    }
}
