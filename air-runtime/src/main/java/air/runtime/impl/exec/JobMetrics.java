package air.runtime.impl.exec;

import air.runtime.JobStatus;
import air.runtime.impl.ops.Counted;
import air.runtime.impl.ops.WindowFinal;
import air.runtime.impl.ops.WindowPartial;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Binds a job's {@code air.*} meters to the user's registry. Operators count in plain fields on
 * their own thread; meters read those fields when scraped, so the hot path never touches a meter.
 *
 * <ul>
 *   <li>{@code air.records.in} / {@code air.records.out} per operator (tags job, vertex, operator, kind)</li>
 *   <li>{@code air.queue.depth} per inbox (tags job, vertex, instance)</li>
 *   <li>{@code air.window.results} and {@code air.late.records} per window operator</li>
 *   <li>{@code air.progress.holders} per final window instance: how many upstream instances hold back its oldest open window</li>
 *   <li>{@code air.job.duration} (tag status) when the job ends</li>
 * </ul>
 */
public final class JobMetrics {

    private final MeterRegistry registry;
    private final String job;
    private final JobGraph graph;

    JobMetrics(MeterRegistry registry, String job, JobGraph graph) {
        this.registry = registry;
        this.job = job;
        this.graph = graph;
        register();
    }

    private void register() {
        List<OperatorSlot> slots = graph.slots();
        for (int s = 0; s < slots.size(); s++) {
            OperatorSlot slot = slots.get(s);
            Tags tags = Tags.of("job", job, "vertex", Integer.toString(slot.vertex()), "position", Integer.toString(slot.position()),
                    "operator", slot.info().name(), "kind", slot.kind());
            if (!slot.kind().equals("source")) {
                counter("air.records.in", tags, slot.instances(), JobMetrics::sumReceived);
            }
            OperatorSlot feeds = feeds(slots, slot);
            if (feeds != null) {
                counter("air.records.out", tags, feeds.instances(), JobMetrics::sumReceived);
            } else if (slot.kind().equals("window-partial")) {
                counter("air.records.out", tags, slot.instances(),
                        ops -> ops.stream().mapToLong(op -> ((WindowPartial) op).partialsSent()).sum());
            }
        }
        Tags jobTag = Tags.of("job", job);
        counter("air.window.results", jobTag.and("kind", "window-final"), graph.meteredFinals(),
                ops -> ops.stream().mapToLong(op -> op.results()).sum());
        counter("air.late.records", jobTag.and("kind", "window-partial"), graph.partials(),
                ops -> ops.stream().mapToLong(op -> op.late()).sum());
        for (int i = 0; i < graph.finals().size(); i++) {
            WindowFinal op = graph.finals().get(i);
            Gauge.builder("air.progress.holders", op, f -> f.snapshot().holders().length).strongReference(true)
                    .tags(jobTag.and("operator", op.info().name(), "vertex", Integer.toString(op.vertex()), "instance",
                            Integer.toString(op.instance())))
                    .description("upstream instances holding back the oldest open window").register(registry);
        }
        graph.inboxes().forEach((vertex, inboxes) -> {
            for (int i = 0; i < inboxes.length; i++) {
                Inbox inbox = inboxes[i];
                Gauge.builder("air.queue.depth", inbox, Inbox::size).strongReference(true)
                        .tags(jobTag.and("vertex", Integer.toString(vertex), "instance", Integer.toString(i)))
                        .description("batches waiting in a shuffle inbox").register(registry);
            }
        });
    }

    /** The slot {@code slot} feeds in its vertex (what it emits is what that one receives), or null at a tail. */
    private static OperatorSlot feeds(List<OperatorSlot> slots, OperatorSlot slot) {
        for (OperatorSlot other : slots) {
            if (other.vertex() == slot.vertex() && other.position() == slot.downstream()) {
                return other;
            }
        }
        return null;
    }

    private static double sumReceived(List<Counted> ops) {
        long sum = 0;
        for (Counted op : ops) {
            sum += op.received();
        }
        return sum;
    }

    private <T> void counter(String name, Tags tags, T obj, ToDoubleFunction<T> fn) {
        FunctionCounter.builder(name, obj, fn).tags(tags).register(registry);
    }

    void recordEnd(Duration elapsed, JobStatus status) {
        Timer.builder("air.job.duration").tags("job", job, "status", status.name()).register(registry).record(elapsed);
    }
}
