package air.runtime.impl.exec;

import air.runtime.JobStatus;
import air.runtime.JobSummary;
import air.runtime.impl.ops.Counted;
import air.runtime.impl.ops.PartialWindowMeters;
import air.runtime.impl.ops.WindowFinal;
import air.runtime.impl.shuffle.Inbox;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * Binds a job's {@code air.*} meters to the user's registry, and answers {@link JobSummary}.
 * Operators count in plain fields on their own thread; meters read those fields when scraped, so
 * the hot path never touches a meter. The {@code operator} tag is {@link air.runtime.plan.OperatorInfo#meterName}:
 * the {@code named(...)} label, else kind and plan position, never a source line.
 *
 * <ul>
 *   <li>{@code air.records.in} / {@code air.records.out} per operator (tags job, run, vertex, position, operator, kind)</li>
 *   <li>{@code air.queue.depth} per inbox (tags job, vertex, instance)</li>
 *   <li>{@code air.window.results} and {@code air.late.records} per job</li>
 *   <li>{@code air.progress.holders} per final window instance: how many upstream instances hold back its oldest open window</li>
 *   <li>{@code air.job.duration} (tag status) when the job ends</li>
 *   <li>{@code air.shuffle.stale.frames} per job, in cluster mode: frames of an earlier cluster job that its
 *   receivers dropped (counted by {@code RemoteShuffleTasklet}, registered at the first)</li>
 * </ul>
 *
 * <p>When the job ends ({@link #close}) every meter above that reads the job's operators is
 * removed from the registry, so a JVM that runs many jobs keeps no meters (nor operators) of
 * those that ended; {@code air.job.duration}, {@code air.shuffle.stale.frames} and the checkpoint, recovery and
 * takeover meters, which hold no reference to the job and add up over runs of the same job name, stay.
 */
public final class JobMetrics implements AutoCloseable {

    /** An operator's counts as meters and the summary read them. */
    private record Counts(String name, String kind, int vertex, int position, LongSupplier in, LongSupplier out) { }

    private final MeterRegistry registry;
    private final String job;
    private final JobGraph graph;
    private final List<Counts> counts = new ArrayList<>();
    private final List<Meter> meters = new ArrayList<>();
    /**
     * Which run of the job this is in this JVM: two runs of one job name at once (tests, two
     * pipelines of one application) get meters of their own, and one's end removes only its own.
     */
    private final String run = Long.toString(RUNS.incrementAndGet());
    private static final AtomicLong RUNS = new AtomicLong();

    JobMetrics(MeterRegistry registry, String job, JobGraph graph) {
        this.registry = registry;
        this.job = job;
        this.graph = graph;
        register();
    }

    private void register() {
        List<OperatorSlot> slots = graph.slots();
        for (OperatorSlot slot : slots) {
            String name = slot.info().meterName(slot.vertex(), slot.position());
            Tags tags = Tags.of("job", job, "run", run, "vertex", Integer.toString(slot.vertex()), "position", Integer.toString(slot.position()),
                    "operator", name, "kind", slot.kind());
            LongSupplier in = slot.kind().equals("source") ? () -> 0 : () -> (long) sumReceived(slot.instances());
            if (!slot.kind().equals("source")) {
                counter("air.records.in", tags, slot.instances(), JobMetrics::sumReceived);
            }
            OperatorSlot feeds = feeds(slots, slot);
            LongSupplier out = () -> 0;
            if (feeds != null) {
                counter("air.records.out", tags, feeds.instances(), JobMetrics::sumReceived);
                out = () -> (long) sumReceived(feeds.instances());
            } else if (slot.kind().equals("window-partial")) {
                counter("air.records.out", tags, slot.instances(), JobMetrics::partialsSent);
                out = () -> (long) partialsSent(slot.instances());
            }
            counts.add(new Counts(name, slot.kind(), slot.vertex(), slot.position(), in, out));
        }
        Tags jobTag = Tags.of("job", job, "run", run);
        counter("air.window.results", jobTag.and("kind", "window-final"), graph.meteredFinals(), JobMetrics::results);
        counter("air.late.records", jobTag.and("kind", "window-partial"), graph.partials(), JobMetrics::late);
        for (WindowFinal op : graph.finals()) {
            meters.add(Gauge.builder("air.progress.holders", op, f -> f.snapshot().holders().length).strongReference(true)
                    .tags(jobTag.and("operator", op.info().meterName(op.vertex(), 0), "vertex", Integer.toString(op.vertex()), "instance",
                            Integer.toString(op.instance())))
                    .description("upstream instances holding back the oldest open window").register(registry));
        }
        graph.inboxes().forEach((vertex, inboxes) -> {
            for (int i = 0; i < inboxes.length; i++) {
                meters.add(Gauge.builder("air.queue.depth", inboxes[i], Inbox::size).strongReference(true)
                        .tags(jobTag.and("vertex", Integer.toString(vertex), "instance", Integer.toString(i)))
                        .description("batches waiting in a shuffle inbox").register(registry));
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

    private static double partialsSent(List<Counted> ops) {
        return ops.stream().mapToLong(op -> ((PartialWindowMeters) op).partialsSent()).sum();
    }

    private static double results(List<WindowFinal> finals) {
        return finals.stream().mapToLong(WindowFinal::results).sum();
    }

    private static double late(List<PartialWindowMeters> partials) {
        return partials.stream().mapToLong(PartialWindowMeters::late).sum();
    }

    private <T> void counter(String name, Tags tags, T obj, ToDoubleFunction<T> fn) {
        meters.add(FunctionCounter.builder(name, obj, fn).tags(tags).register(registry));
    }

    /** What the job did so far (every count read now, on the caller's thread: a moment's view while it runs). */
    JobSummary summary(JobStatus status, Duration elapsed) {
        List<JobSummary.Operator> ops = new ArrayList<>();
        long sourced = 0;
        for (Counts c : counts) {
            long out = c.out().getAsLong();
            ops.add(new JobSummary.Operator(c.name(), c.kind(), c.vertex(), c.position(), c.in().getAsLong(), out));
            if (c.kind().equals("source")) {
                sourced += out;
            }
        }
        return new JobSummary(job, status, elapsed, ops, (long) results(graph.meteredFinals()), (long) late(graph.partials()), sourced);
    }

    void recordEnd(Duration elapsed, JobStatus status) {
        Timer.builder("air.job.duration").tags("job", job, "status", status.name()).register(registry).record(elapsed);
    }

    /** The job ended: removes every meter that reads its operators. */
    @Override
    public void close() {
        for (Meter m : meters) {
            registry.remove(m);
        }
        meters.clear();
    }
}
