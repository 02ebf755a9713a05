package air.samples.ysb;

import air.dsl.Checkpoints;
import air.dsl.Pipeline;
import air.launcher.PeerReporter;
import air.runtime.Cluster;
import air.runtime.Job;
import air.runtime.JobConfig;
import air.runtime.JobStatus;
import air.runtime.api.WindowResult;
import air.runtime.api.WindowValue;
import air.samples.kafka.YsbEventBytes;
import air.workloads.words.SentenceGenerator;
import air.workloads.ysb.YsbGenerator;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;

/** Runs YSB-mem once on this JVM and measures it as YSB-SPEC section 7 says. */
public final class YsbRun {

    /** What one run produced: its rows and its times; {@code savepoint} > 0 when it stopped there instead of ending. */
    public record Outcome(YsbArgs args, YsbRows rows, long firstNanos, long runNanos, long jobNanos, long scheduleStartNanos,
                          long savepoint, long cpuNanos) {

        public Outcome(YsbArgs args, YsbRows rows, long firstNanos, long runNanos, long jobNanos, long scheduleStartNanos) {
            this(args, rows, firstNanos, runNanos, jobNanos, scheduleStartNanos, 0, 0);
        }

        /** Whether the run stopped at a savepoint ({@code --savepoint}) rather than ran to its end. */
        public boolean stopped() {
            return savepoint > 0;
        }

        public double throughput() {
            return args.n() * 1e9 / runNanos;
        }
    }

    /** The job's name, which the supervisors' events are filtered by. */
    static final String JOB = "ysb-mem";

    private YsbRun() {
    }

    /** Runs the query; {@code progress} is null for no progress line. */
    public static Outcome run(YsbArgs args, PrintStream progress) {
        return run(args, progress, null);
    }

    /**
     * Runs this JVM's part of the query; {@code cluster} null for this JVM alone. In cluster mode
     * the peers meet first so that their latency schedules start together.
     */
    public static Outcome run(YsbArgs args, PrintStream progress, Cluster cluster) {
        if (cluster != null) {
            try {
                cluster.barrier();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while meeting the other peers", e);
            }
        }
        long submitted = System.nanoTime();
        YsbGenerator generator = new YsbGenerator(args.seed(), args.rate());
        MeterRegistry registry = new SimpleMeterRegistry();
        // started by the local launcher: report job events and first outputs to it (no-op otherwise)
        PeerReporter reporter = PeerReporter.fromEnvironment();
        long scheduleStart = args.offered() > 0 ? submitted + 1_000_000_000L : 0;
        YsbResultSink<?> sink;
        Pipeline pipeline;
        switch (args.query()) {
            case YSBM -> {
                YsbResultSink<WindowResult<Long, YsbmQuery.ClicksViews>> s = new YsbResultSink<>(YsbRows.Shape.RATIOS, YsbmQuery.ROW,
                        reporter::firstOutput, reporter.restoredOutputs());
                sink = s;
                pipeline = YsbmQuery.build(args.n(), generator, args.offered(), scheduleStart, s);
            }
            case WA -> {
                YsbResultSink<WindowValue<Long>> s = new YsbResultSink<>(YsbRows.Shape.TOTALS, WaQuery.ROW, reporter::firstOutput,
                        reporter.restoredOutputs());
                sink = s;
                pipeline = WaQuery.build(args.n(), generator, args.offered(), scheduleStart, s);
            }
            case WORDCOUNT -> {
                YsbResultSink<WindowResult<String, Long>> s = new YsbResultSink<>(YsbRows.Shape.WORDS, WordCountQuery.ROW,
                        reporter::firstOutput, reporter.restoredOutputs());
                sink = s;
                pipeline = WordCountQuery.build(args.n(), new SentenceGenerator(args.seed(), args.rate()), args.offered(), scheduleStart, s);
            }
            case SESSIONS -> {
                YsbResultSink<WindowResult<Long, Long>> s = new YsbResultSink<>(YsbRows.Shape.SESSIONS, SessionsQuery.ROW,
                        reporter::firstOutput, reporter.restoredOutputs());
                sink = s;
                pipeline = SessionsQuery.build(args.n(), generator, args.offered(), scheduleStart, args.gapMs(), s);
            }
            case ENRICH -> {
                YsbResultSink<WindowResult<Long, Long>> s = new YsbResultSink<>(YsbRows.Shape.NAMED, EnrichQuery.row(generator),
                        reporter::firstOutput, reporter.restoredOutputs());
                sink = s;
                pipeline = EnrichQuery.build(args.n(), generator, args.offered(), scheduleStart, s);
            }
            default -> {
                YsbResultSink<WindowResult<Long, Long>> s = YsbResultSink.counts(reporter::firstOutput, reporter.restoredOutputs());
                sink = s;
                pipeline = switch (args.query()) {
                    case USERS -> UsersQuery.build(args.n(), generator, args.offered(), scheduleStart, s);
                    case PROCESS -> ProcessQuery.build(args.n(), generator, args.offered(), scheduleStart, s);
                    default -> args.kafka() != null ? YsbQuery.build(YsbEventBytes.source(args.kafka()), generator, s)
                            : YsbQuery.build(args.n(), generator, args.offered(), scheduleStart, s);
                };
            }
        }
        JobConfig config = JobConfig.defaults().name(JOB).workers(args.parallelism())
                .batchSize(args.batch()).routing(args.routing()).progress(args.progress()).watermarkIntervalMs(args.watermarkMs())
                .meterRegistry(registry).cluster(cluster);
        if (args.kafka() != null) {
            // a bounded replay of a topic that holds every partition's share from the start: a split whose consumer stalls past the
            // idle timeout (a restore onto 3 workers on 2 cores did) would be released, and its next records dropped as late
            // behind the others' event time (YsbKafkaIT saw 314): wait for every split instead
            config = config.idleTimeoutMs(0);
            // as the bare consumer loop of ./air bench kafka does before its clock starts: the topic is listed first (a missing one
            // fails here, not in the job), so that both measure reading the topic, not the Kafka client's first start in a cold JVM
            YsbEventBytes.requireTopic(args.kafka());
        }
        config = reporter.install(config);
        if (args.faults().replicating()) {
            config = config.replication(args.faults().replicas(), args.faults().intervalOrDefault());
        }
        config = config.fullCheckpointEvery(args.faults().fullEvery());
        if (args.faults().checkpointing()) {
            config = config.checkpoints(Checkpoints.toDirectory(args.faults().checkpoints()), args.faults().intervalMs())
                    .startAfresh(args.fresh());
        }
        long share = cluster == null ? args.n() : args.n() / cluster.peers();
        ProgressLine line = progress != null ? new ProgressLine(registry, share, progress) : null;
        if (line != null) {
            line.start();
        }
        long first;
        long cpuAtFirst;
        long savepoint = 0;
        try {
            first = System.nanoTime();
            cpuAtFirst = YsbReport.processCpuNanos();
            Job job = pipeline.submit(config);
            Thread stopper = args.faults().stopsWithSavepoint() ? stopLater(job, args.faults().stopAfterMs()) : null;
            try {
                job.join();
            } finally {
                if (stopper != null) {
                    stopper.interrupt();
                }
            }
            if (job.status() == JobStatus.STOPPED) {
                savepoint = job.stopWithSavepoint().join();
            }
        } finally {
            if (line != null) {
                line.close();
            }
        }
        long end = System.nanoTime();
        long cpu = YsbReport.processCpuNanos() - cpuAtFirst;
        YsbRows rows = sink.rows();
        long last = Math.max(rows.lastEmitNanos(), first + 1);
        long runStart = args.offered() > 0 ? Math.max(first, scheduleStart) : first;
        return new Outcome(args, rows, first, last - runStart, end - submitted, scheduleStart, savepoint, cpu);
    }

    /** {@code --stop-after T}: asks the job to stop with a savepoint after T, unless it ended first. */
    private static Thread stopLater(Job job, long afterMs) {
        return Thread.ofVirtual().name("ysb-stop-after").start(() -> {
            try {
                Thread.sleep(afterMs); // the user's chosen moment, not a synchronisation
            } catch (InterruptedException e) {
                return; // the job ended first
            }
            job.stopWithSavepoint().exceptionally(e -> {
                System.err.println("ysb: no savepoint: " + e.getMessage());
                return 0L;
            });
        });
    }
}
