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
}
