package air.runtime.impl.source;

import air.runtime.api.BadRecordException;
import air.runtime.api.BadRecordPolicy;
import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.DeadLetter;
import air.runtime.api.SinkWriter;
import air.runtime.api.SourceContext;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Metrics;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One instance's side of a {@link BadRecordPolicy}: fails naming the origin, or counts, logs (at
 * most one WARN every {@link #LOG_EVERY_NANOS}, with how many went unlogged) and, under dead-letter,
 * writes the record to its own writer, whose state rolls back with the instance's.
 */
public final class BadRecords {

    private static final Logger LOG = LoggerFactory.getLogger(BadRecords.class);
    static final long LOG_EVERY_NANOS = 10_000_000_000L;

    private final BadRecordPolicy policy;
    private final String operator;
    private Counter counter;
    /** The dead-letter writer as opened: it snapshots and restores. */
    private SinkWriter<DeadLetter> opened;
    /** The same as one of the job's sinks: records are written, and it is closed or aborted, through it. */
    private SinkWriter<DeadLetter> writer;
    private long lastLogNanos;
    private boolean loggedOnce;
    private long unlogged;
    private long count;

    public BadRecords(BadRecordPolicy policy, String operator) {
        this.policy = policy;
        this.operator = operator;
    }

    /** Opens the dead-letter writer, as one of the job's sinks (refused under exactly-once when it cannot roll back), and the meter. */
    @SuppressWarnings("unchecked")
    public void open(SourceContext context) {
        counter = Counter.builder("air.records.bad").description("records that could not be used, skipped or dead-lettered")
                .tags("job", context.jobName(), "operator", operator, "policy", policy.label())
                .register(context.meters() == null ? Metrics.globalRegistry : context.meters());
        if (policy instanceof BadRecordPolicy.DeadLetters d) {
            opened = (SinkWriter<DeadLetter>) d.sink().open(context.instance(), context.parallelism());
            writer = context.sideOutputs().adopt(opened, operator, "its dead letters to " + d.sink().describe());
        }
    }

    /** Applies the policy to one record that could not be used. */
    public void onBadRecord(String origin, byte[] raw, Exception cause) {
        if (policy instanceof BadRecordPolicy.Fail) {
            throw new BadRecordException(operator, origin, cause);
        }
        count++;
        counter.increment();
        if (writer != null) {
            writer.write(new DeadLetter(origin, operator, raw, cause.toString()));
        }
        long now = System.nanoTime();
        if (!loggedOnce || now - lastLogNanos >= LOG_EVERY_NANOS) {
            LOG.warn("{}: the record at {} cannot be used ({}): {}{}", operator, origin, policy.label(), cause,
                    unlogged == 0 ? "" : " (" + unlogged + " more since the last such line)");
            loggedOnce = true;
            lastLogNanos = now;
            unlogged = 0;
        } else {
            unlogged++;
        }
    }

    /** Records skipped or dead-lettered by this instance since it opened. */
    public long count() {
        return count;
    }

    /** The dead-letter writer's state, or null when there is none to keep. */
    public byte[] snapshot(long checkpointId) {
        CheckpointedSinkWriter<?> c = checkpointed();
        return c == null ? null : c.snapshot(checkpointId);
    }

    public void restore(byte[] state) {
        CheckpointedSinkWriter<?> c = checkpointed();
        if (state != null && c != null) {
            c.restore(state);
        }
    }

    /** Onto another layout: earlier instance {@code i}'s dead letters go to instance {@code i mod n}. */
    public void restoreRescaled(long checkpointId, List<List<byte[]>> earlier) {
        CheckpointedSinkWriter<?> c = checkpointed();
        if (c != null) {
            c.restoreRescaled(checkpointId, earlier);
        }
    }

    /** The dead-letter writer's state, or null when it keeps none. */
    private CheckpointedSinkWriter<?> checkpointed() {
        return opened instanceof CheckpointedSinkWriter<?> c ? c : null;
    }

    public void close() {
        if (writer != null) {
            writer.close();
        }
    }

    public void abort() {
        if (writer != null) {
            writer.abort();
        }
    }
}
