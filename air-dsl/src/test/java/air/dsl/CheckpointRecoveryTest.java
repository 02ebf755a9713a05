package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.CheckpointMismatchException;
import air.runtime.Job;
import air.runtime.JobConfig;
import air.runtime.JobFailedException;
import air.runtime.api.Codec;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.runtime.sink.CollectSink;
import air.runtime.sink.PartFilesSink;
import air.wire.WireIn;
import air.wire.WireOut;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Checkpointing and rollback in one JVM: a job that fails after checkpoints were written is run
 * again with the same directory and resumes from the newest one; its output is exactly what a
 * failure-free run gives — nothing lost, nothing twice.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CheckpointRecoveryTest {

    private static final long N = 6_000;
    /** Each source instance holds here (empty reads: barriers and checkpoints go on) until its run says go. */
    private static final long HOLD_AT = 1_000;

    /** The file store, counting writes, and failing the write of checkpoint {@code failWrite} once. */
    static final class WatchedStore extends ForwardingStore {
        final AtomicInteger writes = new AtomicInteger();
        final AtomicInteger attempts = new AtomicInteger();
        final AtomicInteger changesWrites = new AtomicInteger();
        volatile long failWrite = -1;

        WatchedStore(Path dir) {
            super(Checkpoints.toDirectory(dir));
        }

        @Override public void write(String job, long id, long base, int peer, int peers, Map<String, byte[]> parts) throws IOException {
            attempts.incrementAndGet();
            if (id == failWrite) {
                failWrite = -1;
                throw new IOException("disk full (injected)");
            }
            inner.write(job, id, base, peer, peers, parts);
            writes.incrementAndGet();
            if (base != id) {
                changesWrites.incrementAndGet();
            }
        }
    }

    /**
     * Runs the job; {@code failAfterWrites} > 0 makes a map throw once that many checkpoints are on
     * disk. The sources hold a third of the way in until then (or until the store has tried the
     * write it is set to fail), so the failure always lands mid-run.
     */
    private static void run(WindowDefinition window, Routing routing, Progress progress, WatchedStore store, SinkFactory<WindowResult<Long,
            Long>> sink,
                            int failAfterWrites, SimpleMeterRegistry registry) {
        run(window, routing, progress, store, sink, failAfterWrites, registry, false);
    }

    private static final Codec<Long> LONGS = new Codec<>() {
        @Override public void write(Long value, WireOut out) { out.putLong(value); }
        @Override public Long read(WireIn in) { return in.getLong(); }
    };

    /** {@code rebalanced}: the records cross a rebalance exchange between the source's chain and the window. */
    private static void run(WindowDefinition window, Routing routing, Progress progress, WatchedStore store,
                            SinkFactory<WindowResult<Long, Long>> sink, int failAfterWrites, SimpleMeterRegistry registry, boolean rebalanced) {
        AtomicBoolean armed = new AtomicBoolean(failAfterWrites > 0);
        long failWrite = store.failWrite;
        BooleanSupplier release = () -> store.writes.get() >= failAfterWrites
                && (failWrite < 0 || store.attempts.get() >= failWrite);
        Pipeline p = Pipeline.create();
        Stage<Long> timed = p.readFrom(new TestPipelines.HeldSource(N, HOLD_AT, release))
                .map(i -> {
                    if (armed.get() && store.writes.get() >= failAfterWrites && armed.getAndSet(false)) {
                        throw new IllegalStateException("injected failure");
                    }
                    return i;
                })
                .withTimestamps(i -> i, 0);
        (rebalanced ? timed.rebalance(LONGS) : timed)
                .keyByLong(i -> i % 13)
                .window(window)
                .aggregate(Aggregations.count())
                .writeTo(sink);
        JobConfig c = config(2).batchSize(16).routing(routing).progress(progress).checkpoints(store, 40).meterRegistry(registry)
                .fullCheckpointEvery(3);
        p.execute(c);
    }

    private static Map<String, Long> collected(List<WindowResult<Long, Long>> items) {
        Map<String, Long> out = new TreeMap<>();
        for (WindowResult<Long, Long> r : items) {
            Long before = out.put("[" + r.start() + "," + r.end() + ") " + r.key(), r.value());
            assertThat(before).as("result emitted twice: " + r).isNull();
        }
        return out;
    }

    private static double count(SimpleMeterRegistry registry, String name) {
        return registry.find(name).counter() == null ? 0 : registry.find(name).counter().count();
    }

    @ParameterizedTest(name = "{0} routing={1} progress={2}")
    @CsvSource({"tumbling,KEY,WATERMARK", "tumbling,AIR,HEWMELD", "sliding,KEY,HEWMELD", "sliding,AIR,WATERMARK"})
    void a_failed_job_resumes_from_its_newest_checkpoint_exactly_once(String kind, Routing routing, Progress progress, @TempDir Path dir) {
        WindowDefinition window = kind.equals("tumbling") ? Windows.tumbling(100) : Windows.sliding(200, 100);
        WatchedStore store = new WatchedStore(dir);
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
        SimpleMeterRegistry first = new SimpleMeterRegistry();
        assertThatThrownBy(() -> run(window, routing, progress, store, sink, 2, first))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        assertThat(count(first, "air.checkpoints")).isGreaterThanOrEqualTo(2);
        assertThat(count(first, "air.checkpoints.changes")).as("checkpoints holding only changes (a whole one every 3)")
                .isPositive();
        assertThat(store.changesWrites.get()).isPositive();

        SimpleMeterRegistry second = new SimpleMeterRegistry();
        run(window, routing, progress, store, sink, 0, second);
        assertThat(count(second, "air.recoveries")).as("the second run resumed from a checkpoint").isEqualTo(1);
        assertThat(collected(sink.items())).isEqualTo(TestPipelines.expectedCounts(N, 13, window));
        assertReleased(dir);
    }

    @ParameterizedTest(name = "routing={0} progress={1}")
    @CsvSource({"KEY,WATERMARK", "AIR,HEWMELD"})
    void a_job_with_a_rebalance_resumes_exactly_once(Routing routing, Progress progress, @TempDir Path dir) {
        WindowDefinition window = Windows.tumbling(100);
        WatchedStore store = new WatchedStore(dir);
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
        assertThatThrownBy(() -> run(window, routing, progress, store, sink, 2, new SimpleMeterRegistry(), true))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        run(window, routing, progress, store, sink, 0, second, true);
        assertThat(count(second, "air.recoveries")).isEqualTo(1);
        assertThat(collected(sink.items())).isEqualTo(TestPipelines.expectedCounts(N, 13, window));
        assertReleased(dir);
    }

    /** After the jobs: no file under the checkpoint directory is still open, and no checkpoint writer thread is alive. */
    private static void assertReleased(Path dir) {
        Path fds = Path.of("/proc/self/fd");
        if (Files.isDirectory(fds)) {
            try (var entries = Files.list(fds)) {
                List<String> open = entries.map(fd -> {
                    try {
                        return Files.readSymbolicLink(fd).toString();
                    } catch (IOException | UnsupportedOperationException e) {
                        return "";
                    }
                }).filter(target -> target.startsWith(dir.toAbsolutePath().toString())).toList();
                assertThat(open).as("files of the checkpoint directory still open").isEmpty();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        // the writer's executor has terminated when the job returns; its thread may take a moment more to end (a bounded join)
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().endsWith("/checkpoint-writer")) {
                try {
                    t.join(Duration.ofSeconds(5));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
        }
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().endsWith("/checkpoint-writer") && t.isAlive());
    }

    @Test
    void a_checkpoint_that_cannot_be_written_fails_only_itself_the_job_goes_on_and_a_rerun_resumes_exactly_once(@TempDir Path dir)
            throws IOException {
        WindowDefinition window = Windows.tumbling(100);
        WatchedStore store = new WatchedStore(dir);
        store.failWrite = 3;
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
        SimpleMeterRegistry first = new SimpleMeterRegistry();
        // checkpoint 3 fails (a full disk, injected); the job goes on, writes 4 and 5, then fails on purpose
        assertThatThrownBy(() -> run(window, Routing.KEY, Progress.HEWMELD, store, sink, 4, first))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure")
                .hasMessageNotContaining("could not be written");
        assertThat(count(first, "air.checkpoints.failed")).isEqualTo(1);
        assertThat(count(first, "air.checkpoints")).isGreaterThanOrEqualTo(4);
        try (var all = Files.walk(dir)) {
            assertThat(all.filter(f -> f.toString().endsWith(".tmp")).toList()).as("temporary files left").isEmpty();
        }
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        run(window, Routing.KEY, Progress.HEWMELD, store, sink, 0, second);
        assertThat(count(second, "air.recoveries")).isEqualTo(1);
        assertThat(collected(sink.items())).isEqualTo(TestPipelines.expectedCounts(N, 13, window));
        assertReleased(dir);
    }

    @Test
    void a_second_run_of_the_job_on_the_same_directory_is_refused_while_the_first_runs(@TempDir Path dir) {
        AtomicBoolean go = new AtomicBoolean();
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
        Job first = held(go, sink).submit(config(2).batchSize(16).checkpoints(Checkpoints.toDirectory(dir), 40));
        try {
            CollectSink<WindowResult<Long, Long>> other = Sinks.collect();
            assertThatThrownBy(() -> held(go, other).execute(config(2).batchSize(16).checkpoints(Checkpoints.toDirectory(dir), 40)))
                    .isInstanceOf(CheckpointMismatchException.class).hasMessageContaining("in use by another run")
                    .hasMessageContaining("pid=" + ProcessHandle.current().pid()).hasMessageContaining("started=")
                    .hasMessageContaining("this JVM");
            assertThatThrownBy(other::items).as("nothing ran").hasMessageContaining("has not run yet");
        } finally {
            go.set(true);
        }
        first.join();
        assertThat(collected(sink.items())).isEqualTo(TestPipelines.expectedCounts(N, 13, Windows.tumbling(100)));
        assertReleased(dir);
    }

    /** The job of {@link #run}, its sources held a while in until {@code go}. */
    private static Pipeline held(AtomicBoolean go, SinkFactory<WindowResult<Long, Long>> sink) {
        Pipeline p = Pipeline.create();
        p.readFrom(new TestPipelines.HeldSource(N, HOLD_AT, go::get)).withTimestamps(i -> i, 0)
                .keyByLong(i -> i % 13).window(Windows.tumbling(100)).aggregate(Aggregations.count()).writeTo(sink);
        return p;
    }

    private static PartFilesSink<WindowResult<Long, Long>> partFiles(Path out) {
        return Sinks.partFiles(out, r -> "[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value());
    }

    private static Map<String, Long> partLines(Path out) throws IOException {
        Map<String, Long> got = new TreeMap<>();
        try (var parts = Files.newDirectoryStream(out, "part-*")) { // the parts, not the owners' fencing tokens in .owners
            for (Path part : StreamSupport.stream(parts.spliterator(), false).sorted().toList()) {
                for (String line : Files.readAllLines(part)) {
                    int eq = line.lastIndexOf('=');
                    assertThat(got.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1)))).as("line twice: " + line).isNull();
                }
            }
        }
        return got;
    }

    @Test
    void a_first_run_refuses_to_replace_part_files_of_an_earlier_run_unless_asked_to_start_afresh(@TempDir Path dir) throws IOException {
        Path out = Files.createDirectories(dir.resolve("out"));
        Files.writeString(out.resolve("part-0"), "[0,100) 0=8\n");
        Files.writeString(out.resolve("part-7"), "[0,100) 7=8\n");
        Files.writeString(out.resolve("part-1"), ""); // empty: nothing to lose
        JobConfig c = config(2).batchSize(16).checkpoints(Checkpoints.toDirectory(dir.resolve("ck")), 40);
        assertThatThrownBy(() -> held(new AtomicBoolean(true), partFiles(out)).execute(c))
                .isInstanceOf(CheckpointMismatchException.class).hasMessageContaining("first run")
                .hasMessageContaining(out.resolve("part-0") + " (12 bytes)").hasMessageContaining(out.resolve("part-7").toString())
                .hasMessageNotContaining(out.resolve("part-1").toString()).hasMessageContaining("startAfresh(true)");
        assertThat(Files.readString(out.resolve("part-0"))).as("untouched").isEqualTo("[0,100) 0=8\n");
        held(new AtomicBoolean(true), partFiles(out)).execute(c.startAfresh(true));
        assertThat(out.resolve("part-7")).as("an earlier run's part that this run does not write is gone too").doesNotExist();
        assertThat(partLines(out)).isEqualTo(TestPipelines.expectedCounts(N, 13, Windows.tumbling(100)));
    }

    @Test
    void a_restart_of_a_run_that_died_before_any_checkpoint_replaces_its_uncommitted_part_files(@TempDir Path dir) throws IOException {
        Path out = dir.resolve("out");
        Path ck = dir.resolve("ck");
        JobConfig c = config(2).batchSize(16).checkpoints(Checkpoints.toDirectory(ck), 40);
        held(new AtomicBoolean(true), partFiles(out)).execute(c);
        // as if that run had died before its first checkpoint: it claimed the directory (its locks stay), committed nothing
        try (var files = Files.walk(ck)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                if (p.toString().contains("ckpt-")) {
                    Files.delete(p);
                }
            }
        }
        held(new AtomicBoolean(true), partFiles(out)).execute(c);
        assertThat(partLines(out)).isEqualTo(TestPipelines.expectedCounts(N, 13, Windows.tumbling(100)));
        // with no trace of any run in the checkpoint directory, the same part files are an earlier run's output
        try (var files = Files.walk(ck)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        assertThatThrownBy(() -> held(new AtomicBoolean(true), partFiles(out)).execute(c))
                .isInstanceOf(CheckpointMismatchException.class).hasMessageContaining(out.resolve("part-0").toString());
    }

    @Test
    void part_files_commit_per_checkpoint_and_a_resumed_run_cuts_them_back_exactly_once(@TempDir Path dir) throws IOException {
        WindowDefinition window = Windows.tumbling(100);
        WatchedStore store = new WatchedStore(dir.resolve("ck"));
        Path out = dir.resolve("out");
        PartFilesSink<WindowResult<Long, Long>> files =
                Sinks.partFiles(out, r -> "[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value());
        assertThatThrownBy(() -> run(window, Routing.AIR, Progress.HEWMELD, store, files, 2, new SimpleMeterRegistry()))
                .hasMessageContaining("injected failure");
        long afterFailure = Files.size(files.part(0)) + Files.size(files.part(1));
        assertThat(afterFailure).as("the failed run committed lines before it failed").isPositive();
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        run(window, Routing.AIR, Progress.HEWMELD, store, files, 0, second);
        assertThat(count(second, "air.recoveries")).isEqualTo(1);
        Map<String, Long> got = new TreeMap<>();
        for (int instance = 0; instance < 2; instance++) {
            for (String line : Files.readAllLines(files.part(instance))) {
                int eq = line.lastIndexOf('=');
                assertThat(got.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1)))).as("line twice: " + line).isNull();
            }
        }
        assertThat(got).isEqualTo(TestPipelines.expectedCounts(N, 13, window));
        assertReleased(dir);
    }

    @Test
    void a_failure_right_after_recovery_is_recovered_from_too(@TempDir Path dir) {
        WindowDefinition window = Windows.tumbling(100);
        WatchedStore store = new WatchedStore(dir);
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
        assertThatThrownBy(() -> run(window, Routing.AIR, Progress.HEWMELD, store, sink, 2, new SimpleMeterRegistry()))
                .hasMessageContaining("injected failure");
        // fails again at once, before the resumed run has written a checkpoint of its own
        int before = store.writes.get();
        assertThatThrownBy(() -> run(window, Routing.AIR, Progress.HEWMELD, store, sink, before, new SimpleMeterRegistry()))
                .hasMessageContaining("injected failure");
        SimpleMeterRegistry third = new SimpleMeterRegistry();
        run(window, Routing.AIR, Progress.HEWMELD, store, sink, 0, third);
        assertThat(count(third, "air.recoveries")).isEqualTo(1);
        assertThat(collected(sink.items())).isEqualTo(TestPipelines.expectedCounts(N, 13, window));
    }

    @Test
    void sinks_and_aggregations_that_cannot_roll_back_are_refused_when_the_job_starts(@TempDir Path dir) {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(10, i -> i)).withTimestamps(i -> i, 0).keyByLong(i -> 0L).window(Windows.tumbling(5))
                .aggregate(Aggregations.count()).writeTo(Sinks.print());
        assertThatThrownBy(() -> p.execute(config(1).checkpoints(Checkpoints.toDirectory(dir), 100)))
                .hasMessageContaining("is not exactly-once").hasMessageContaining("CheckpointedSinkWriter");
        Pipeline q = Pipeline.create();
        q.readFrom(Sources.generate(10, i -> i)).withTimestamps(i -> i, 0).keyByLong(i -> 0L).window(Windows.tumbling(5))
                .reduce(Long::sum).writeTo(Sinks.collect());
        assertThatCode(() -> q.execute(config(1).checkpoints(Checkpoints.toDirectory(dir), 100))) // no codec: the serializer's
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> config(1).checkpoints(Checkpoints.toDirectory(dir), 0)).hasMessageContaining("intervalMs must be >= 1");
    }

    /**
     * Another pipeline under the job name of {@link #run}: another source, and so none of its
     * operators like the saved ones (a stateless stage more or less would not matter: see
     * StableOperatorIdsTest).
     */
    private static void runChanged(WatchedStore store, SinkFactory<WindowResult<Long, Long>> sink, boolean afresh) {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(N, i -> i)).withTimestamps(i -> i, 0)
                .keyByLong(i -> i % 13).window(Windows.tumbling(100)).aggregate(Aggregations.count()).writeTo(sink);
        p.execute(config(2).batchSize(16).checkpoints(store, 40).startAfresh(afresh));
    }

    @Test
    void checkpoints_of_another_pipeline_are_refused_with_a_message_and_discarded_only_when_asked(@TempDir Path dir) throws IOException {
        WatchedStore store = new WatchedStore(dir);
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
        assertThatThrownBy(() -> run(Windows.tumbling(100), Routing.KEY, Progress.WATERMARK, store, sink, 2, new SimpleMeterRegistry()))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        CollectSink<WindowResult<Long, Long>> other = Sinks.collect();
        assertThatThrownBy(() -> runChanged(store, other, false))
                .isInstanceOf(CheckpointMismatchException.class)
                .hasMessageContaining("job 'test': checkpoint ").hasMessageContaining(" in " + dir + " is of another pipeline")
                .hasMessageContaining("saved: [v0#source, ").hasMessageContaining("this pipeline: [v0#source, ")
                .hasMessageContaining("where the ids agree, the operators do not: v0#source: saved [source held generator after ")
                .hasMessageContaining("startAfresh(true)");
        assertThatThrownBy(other::items).as("nothing ran").hasMessageContaining("has not run yet");
        runChanged(store, other, true);
        assertThat(collected(other.items())).isEqualTo(TestPipelines.expectedCounts(N, 13, Windows.tumbling(100)));
        assertThatCode(() -> runChanged(store, other, false)).as("the old pipeline's checkpoints were discarded: a rerun of the new one "
                + "resumes its own").doesNotThrowAnyException();
        assertThat(collected(other.items())).as("it resumed from its final checkpoint: everything had ended, nothing is read again")
                .isEqualTo(TestPipelines.expectedCounts(N, 13, Windows.tumbling(100)));
    }

    @Test
    void a_stage_moved_to_another_source_line_resumes_from_its_checkpoint(@TempDir Path dir) {
        WatchedStore store = new WatchedStore(dir);
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
        assertThatThrownBy(() -> run(Windows.tumbling(100), Routing.KEY, Progress.WATERMARK, store, sink, 2, new SimpleMeterRegistry()))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        // the same pipeline built by other lines of code: other call sites, the same structure
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        Pipeline p = Pipeline.create();
        p.readFrom(new TestPipelines.HeldSource(N, HOLD_AT, () -> true))
                .map(i -> i)
                .withTimestamps(i -> i, 0)
                .keyByLong(i -> i % 13)
                .window(Windows.tumbling(100))
                .aggregate(Aggregations.count())
                .writeTo(sink);
        p.execute(config(2).batchSize(16).routing(Routing.KEY).progress(Progress.WATERMARK).checkpoints(store, 40).meterRegistry(second));
        assertThat(count(second, "air.recoveries")).as("the moved pipeline resumed from the checkpoint").isEqualTo(1);
        assertThat(collected(sink.items())).isEqualTo(TestPipelines.expectedCounts(N, 13, Windows.tumbling(100)));
    }
}
