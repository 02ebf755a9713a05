package air.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.InJvmTransports;
import air.channels.Transport;
import air.runtime.CheckpointMismatchException;
import air.runtime.Cluster;
import air.runtime.Job;
import air.runtime.JobConfig;
import air.runtime.JobEvent;
import air.runtime.JobStatus;
import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.Codecs;
import air.runtime.api.JoinType;
import air.runtime.api.KeyedProcessFunction;
import air.runtime.api.MapState;
import air.runtime.api.ProcessContext;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import air.runtime.api.StateDescriptor;
import air.runtime.api.TimeDomain;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Restoring onto another layout: a job checkpointed on 2 peers x 2 workers fails mid-run and
 * resumes on 4 x 1, fails again and resumes on 1 x 2, to its end; the windows' results are exactly
 * a failure-free run's. Peers run in this JVM over in-JVM transports and share one directory.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RescaleTest {

    private static final long N = 24_000;
    private static final long KEYS = 13;
    private static final Cluster.Options FAST = new Cluster.Options(50, 5_000, 20_000);
    /** How the runs count: a window (tumbling or sliding), a keyed process function, session windows, or a window join. */
    private enum Counting { WINDOW, PROCESS, SESSIONS, JOIN, INTERVAL, LOOKUP }

    /** Set by a test before its runs. */
    private static volatile Counting counting = Counting.WINDOW;
    private static final long SESSION_GAP = 500;
    /** Sessions: a pause of 1 s in event time after every 3000 records, so each key has a session per block. */
    private static final long BLOCK = 3_000;

    /** Where the runs write part files ({@code Sinks.partFiles}) instead of keeping rows as state; null: rows. */
    private static volatile Path files;
    /** > 0: the run fails on peer 0 after that many records, with checkpoints too rare to be taken (before its first). */
    private static volatile long failAtRecords;
    /** The checkpoints every run resumed from (Recovering events), by run: a test asserts that a run did resume. */
    private static final List<Long> RESUMED = new CopyOnWriteArrayList<>();
    /** Part lines padded so that they reach the disk before a checkpoint (the writer flushes every 64 KiB). */
    private static final String PAD = " ".repeat(2000);

    @BeforeEach
    void windows() {
        counting = Counting.WINDOW;
        files = null;
        failAtRecords = 0;
        RESUMED.clear();
    }

    private static long timestampOf(long i) {
        return counting == Counting.SESSIONS ? i + (i / BLOCK) * 1_000 : i;
    }

    /** The interval join's pairs a plain loop finds: each even record with the odd ones 13 before and after it. */
    private static Map<String, Long> expectedPairs() {
        Map<String, Long> out = new TreeMap<>();
        for (long a = 0; a < N; a += 2) {
            for (long b : new long[] {a - KEYS, a + KEYS}) {
                if (b >= 0 && b < N) {
                    out.put("[" + a + "," + b + ") " + a % KEYS, 1L);
                }
            }
        }
        return out;
    }

    /** The lookup join's rows: every odd record from 13 on with its key's latest even one, 13 before it. */
    private static Map<String, Long> expectedLookups() {
        Map<String, Long> out = new TreeMap<>();
        for (long r = KEYS; r < N; r++) {
            if (r % 2 == 1) {
                out.put("[" + r + "," + (r - KEYS) + ") " + r % KEYS, 1L);
            }
        }
        return out;
    }

    /** The sessions a plain loop finds, as the rows the job writes. */
    private static Map<String, Long> expectedSessions() {
        Map<String, Long> out = new TreeMap<>();
        for (long block = 0; block * BLOCK < N; block++) {
            for (long k = 0; k < KEYS; k++) {
                long first = -1;
                long last = -1;
                long n = 0;
                for (long i = block * BLOCK; i < Math.min(N, (block + 1) * BLOCK); i++) {
                    if (i % KEYS == k) {
                        first = first < 0 ? i : first;
                        last = i;
                        n++;
                    }
                }
                out.put("[" + timestampOf(first) + "," + (timestampOf(last) + SESSION_GAP) + ") " + k, n);
            }
        }
        return out;
    }

    private static final StateDescriptor<MapState<Long, Long>> PER_WINDOW = StateDescriptor.map("perWindow", Codecs.LONG, Codecs.LONG);

    /** The tumbling window's counts as a keyed process function: map state per window start and an event-time timer at its end. */
    static final class WindowCounts implements KeyedProcessFunction<Long, Long, WindowResult<Long, Long>> {
        private final long size;

        WindowCounts(long size) {
            this.size = size;
        }

        @Override
        public void process(Long i, ProcessContext<Long, WindowResult<Long, Long>> ctx) {
            long start = Math.floorDiv(ctx.timestamp(), size) * size;
            MapState<Long, Long> counts = ctx.state(PER_WINDOW);
            Long n = counts.get(start);
            counts.put(start, n == null ? 1 : n + 1);
            ctx.registerEventTimeTimer(start + size - 1);
        }

        @Override
        public void onTimer(long time, TimeDomain domain, ProcessContext<Long, WindowResult<Long, Long>> ctx) {
            long start = time - size + 1;
            ctx.emit(new WindowResult<>(start, time + 1, ctx.key(), ctx.state(PER_WINDOW).get(start)));
            ctx.state(PER_WINDOW).remove(start);
        }
    }

    /** Keeps its rows as its state, so that they move with it: what a restore onto another layout merges. */
    static final class RowsSink implements SinkFactory<WindowResult<Long, Long>> {
        final Map<Integer, List<String>> rows = new ConcurrentHashMap<>();
        /** False: the writer does not implement restoreRescaled, as a part-file writer would not. */
        private final boolean movable;

        RowsSink(boolean movable) {
            this.movable = movable;
        }

        @Override
        public SinkWriter<WindowResult<Long, Long>> open(int instance, int parallelism) {
            List<String> mine = new ArrayList<>();
            rows.put(instance, mine);
            return new CheckpointedSinkWriter<>() {
                @Override public void write(WindowResult<Long, Long> r) {
                    mine.add("[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value());
                }
                @Override public void close() { }
                @Override public byte[] snapshot(long checkpointId) {
                    return String.join("\n", mine).getBytes(StandardCharsets.UTF_8);
                }
                @Override public void restore(byte[] state) {
                    mine.clear();
                    add(state);
                }
                @Override public void restoreRescaled(long checkpointId, List<List<byte[]>> earlier) {
                    if (!movable) {
                        CheckpointedSinkWriter.super.restoreRescaled(checkpointId, earlier);
                    }
                    mine.clear();
                    for (List<byte[]> chain : earlier) {
                        add(chain.get(chain.size() - 1)); // whole snapshots only: the newest is all of it
                    }
                }
                private void add(byte[] state) {
                    String text = new String(state, StandardCharsets.UTF_8);
                    if (!text.isEmpty()) {
                        mine.addAll(Arrays.asList(text.split("\n")));
                    }
                }
            };
        }

        @Override
        public String describe() {
            return "rows";
        }
    }

    /** The file store, counting the parts written by every peer of a run; {@code onWrite} runs after each, with the count. */
    static final class CountingStore extends ForwardingStore {
        final AtomicInteger writes;
        final IntConsumer onWrite;

        CountingStore(Path dir, AtomicInteger writes, IntConsumer onWrite) {
            super(Checkpoints.toDirectory(dir));
            this.writes = writes;
            this.onWrite = onWrite;
        }

        @Override public void write(String job, long id, long base, int peer, int peers, Map<String, byte[]> parts) throws IOException {
            inner.write(job, id, base, peer, peers, parts);
            onWrite.accept(writes.incrementAndGet());
        }
    }

    /**
     * One run on {@code peers} x {@code workers}; with {@code failAfter} > 0 a map throws on peer 0
     * once the peers wrote that many checkpoint parts (the source is paced, so that lands mid-run).
     * Returns every peer's rows, or throws what the first peer failed with.
     */
    private static List<String> run(int peers, int workers, Path dir, WindowDefinition window, Routing routing, Progress progress,
                                    int failAfter) throws Exception {
        return run(peers, workers, dir, window, routing, progress, failAfter, true, 0, new ArrayList<>());
    }

    /**
     * One run on {@code peers} x {@code workers} that peer 0 stops with a savepoint once the peers
     * wrote {@code stopAfter} checkpoint parts; every peer's job must end STOPPED. Returns the savepoint's id.
     */
    private static long stopped(int peers, int workers, Path dir, WindowDefinition window, Routing routing, int stopAfter)
            throws Exception {
        List<Long> savepoints = new CopyOnWriteArrayList<>();
        run(peers, workers, dir, window, routing, Progress.WATERMARK, 0, true, stopAfter, savepoints);
        assertThat(savepoints).hasSize(1);
        assertThat(RESUMED).as("a stopped run after the first resumed from the savepoint before it").allMatch(id -> id > 0);
        return savepoints.get(0);
    }

    private static List<String> run(int peers, int workers, Path dir, WindowDefinition window, Routing routing, Progress progress,
                                    int failAfter, boolean movableSink, int stopAfter, List<Long> savepoints) throws Exception {
        AtomicInteger writes = new AtomicInteger();
        AtomicLong seen = new AtomicLong();
        CompletableFuture<Job> first = new CompletableFuture<>();
        IntConsumer onWrite = n -> {
            if (n == stopAfter) {
                first.thenAccept(job -> job.stopWithSavepoint().thenAccept(savepoints::add));
            }
        };
        AtomicBoolean armed = new AtomicBoolean(failAfter > 0);
        List<Transport> net = peers == 1 ? null : InJvmTransports.network(peers);
        List<CompletableFuture<List<String>>> parts = new ArrayList<>();
        for (int peer = 0; peer < peers; peer++) {
            int self = peer;
            parts.add(CompletableFuture.supplyAsync(() -> {
                RowsSink sink = new RowsSink(movableSink);
                Pipeline p = Pipeline.create();
                Stage<Long> timed = p.readFrom(Sources.generate(N, i -> i).paced(40_000, System.nanoTime()))
                        .map(i -> {
                            if (self == 0 && armed.get() && writes.get() >= failAfter && armed.getAndSet(false)) {
                                throw new IllegalStateException("injected failure");
                            }
                            if (self == 0 && failAtRecords > 0 && seen.incrementAndGet() == failAtRecords) {
                                throw new IllegalStateException("injected failure before any checkpoint");
                            }
                            return i;
                        })
                        .withTimestamps(RescaleTest::timestampOf, 0);
                Stage<WindowResult<Long, Long>> counts = (switch (counting) {
                    case PROCESS -> timed.keyByLong(i -> i % KEYS).process(new WindowCounts(window.size()), PER_WINDOW);
                    case SESSIONS -> timed.keyByLong(i -> i % KEYS).window(Windows.session(SESSION_GAP)).aggregate(Aggregations.count());
                    case WINDOW -> timed.keyByLong(i -> i % KEYS).window(window).aggregate(Aggregations.count());
                    // the evens' count joined with the odds' per key and window: their sum is the window's count
                    case JOIN -> timed.filter(i -> i % 2 == 0).keyByLong(i -> i % KEYS).window(window)
                            .join(timed.filter(i -> i % 2 == 1).keyByLong(i -> i % KEYS).window(window), Aggregations.count(),
                                    Aggregations.count(), JoinType.FULL, (k, l, r) -> (l == null ? 0 : l) + (r == null ? 0 : r));
                    // each even record with the odd ones of its key 13 before and after it: one row per pair
                    case INTERVAL -> timed.filter(i -> i % 2 == 0).keyByLong(i -> i % KEYS)
                            .intervalJoin(timed.filter(i -> i % 2 == 1).keyByLong(i -> i % KEYS), 20, 20,
                                    (Long k, Long a, Long b) -> new WindowResult<>(a, b, k, 1L), Codecs.LONG, Codecs.LONG);
                    // each odd record looks up its key's latest even record (13 before it) in a table of the evens
                    case LOOKUP -> timed.filter(i -> i % 2 == 1).keyByLong(i -> i % KEYS)
                            .lookupJoin(timed.filter(i -> i % 2 == 0).keyByLong(i -> i % KEYS).toTable(i -> i, Codecs.LONG),
                                    JoinType.INNER, (Long k, Long r, Long v) -> new WindowResult<>(r, v, k, 1L), Codecs.LONG);
                });
                if (files == null) {
                    counts.writeTo(sink);
                } else {
                    counts.writeTo(Sinks.partFiles(files, r -> PAD + "[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value()));
                }
                JobConfig config = TestPipelines.config(workers).batchSize(16).routing(routing).progress(progress)
                        .checkpoints(new CountingStore(dir, writes, onWrite), failAtRecords > 0 ? 60_000 : 30).fullCheckpointEvery(3)
                        .listener(e -> {
                            if (e instanceof JobEvent.Recovering r) {
                                RESUMED.add(r.checkpoint());
                            }
                        });
                if (net == null) {
                    runOne(p, config, self, first, stopAfter);
                } else {
                    try (Cluster c = Cluster.over(net.get(self), FAST)) {
                        runOne(p, config.cluster(c), self, first, stopAfter);
                    }
                }
                List<String> all = new ArrayList<>();
                sink.rows.values().forEach(all::addAll);
                return all;
            }, r -> Thread.ofPlatform().start(r)));
        }
        List<String> all = new ArrayList<>();
        Exception failed = null;
        for (CompletableFuture<List<String>> part : parts) {
            try {
                all.addAll(part.get(60, TimeUnit.SECONDS));
            } catch (ExecutionException e) {
                failed = failed == null && e.getCause() instanceof Exception cause ? cause : failed;
            }
        }
        if (failed != null) {
            throw failed;
        }
        return all;
    }

    private static void runOne(Pipeline p, JobConfig config, int self, CompletableFuture<Job> first, int stopAfter) {
        Job job = p.submit(config);
        if (self == 0) {
            first.complete(job);
        }
        job.join();
        assertThat(job.status()).isEqualTo(stopAfter > 0 ? JobStatus.STOPPED : JobStatus.FINISHED);
    }

    private static Map<String, Long> counted(List<String> rows) {
        Map<String, Long> out = new TreeMap<>();
        for (String row : rows) {
            int eq = row.lastIndexOf('=');
            Long before = out.put(row.substring(0, eq), Long.parseLong(row.substring(eq + 1)));
            assertThat(before).as("result emitted twice: " + row).isNull();
        }
        return out;
    }

    @ParameterizedTest(name = "{0} routing={1}")
    @CsvSource({"tumbling,KEY", "tumbling,AIR", "sliding,AIR", "sliding,KEY", "process,KEY", "sessions,KEY", "join,AIR", "interval,KEY",
        "lookup,AIR"})
    void a_job_resumes_from_2x2_onto_4x1_then_1x2_exactly_once(String kind, Routing routing, @TempDir Path dir) {
        counting = switch (kind) {
            case "process" -> Counting.PROCESS;
            case "sessions" -> Counting.SESSIONS;
            case "join" -> Counting.JOIN;
            case "interval" -> Counting.INTERVAL;
            case "lookup" -> Counting.LOOKUP;
            default -> Counting.WINDOW;
        };
        WindowDefinition window = kind.equals("sliding") ? Windows.sliding(1000, 500) : Windows.tumbling(500);
        assertThatThrownBy(() -> run(2, 2, dir, window, routing, Progress.WATERMARK, 6)).hasMessageContaining("injected failure");
        assertThatThrownBy(() -> run(4, 1, dir, window, routing, Progress.WATERMARK, 12)).hasMessageContaining("injected failure");
        RESUMED.clear();
        List<String> rows = runOrFail(1, 2, dir, window, routing);
        assertThat(RESUMED).as("the last run resumed from a checkpoint of the run before (not from scratch)").hasSize(1)
                .allMatch(id -> id > 0);
        assertThat(counted(rows)).isEqualTo(switch (counting) {
            case SESSIONS -> expectedSessions();
            case INTERVAL -> expectedPairs();
            case LOOKUP -> expectedLookups();
            default -> TestPipelines.expectedCounts(N, KEYS, window);
        });
    }

    @Test
    void part_files_written_on_2x2_4x1_and_1x2_hold_every_row_once_and_earlier_parts_are_sealed(@TempDir Path dir) throws Exception {
        WindowDefinition window = Windows.tumbling(500);
        Path ck = partFilesFailedOn2x2(dir, window);
        assertThatThrownBy(() -> run(4, 1, ck, window, Routing.KEY, Progress.WATERMARK, 12)).hasMessageContaining("injected failure");
        // the same layout again: its writers restore the parts they name (their own and the sealed ones) from their checkpoint
        assertThatThrownBy(() -> run(4, 1, ck, window, Routing.KEY, Progress.WATERMARK, 12)).hasMessageContaining("injected failure");
        runOrFail(1, 2, ck, window, Routing.KEY);
        List<String> names = new ArrayList<>();
        try (var parts = Files.newDirectoryStream(files, "part-*")) {
            parts.forEach(part -> names.add(part.getFileName().toString()));
        }
        assertThat(names).as("the first layout's parts stay, sealed; each later layout writes parts of its own")
                .contains("part-0", "part-1", "part-2", "part-3").anyMatch(n -> n.matches("part-3-at[0-9]+-of4"))
                .anyMatch(n -> n.matches("part-1-at[0-9]+-of2"));
        assertThat(counted(partLines())).isEqualTo(TestPipelines.expectedCounts(N, KEYS, window));
    }

    @Test
    void part_files_of_2x2_taken_by_1x2_are_cut_and_sealed_each_under_its_own_name(@TempDir Path dir) throws Exception {
        WindowDefinition window = Windows.tumbling(500);
        Path ck = partFilesFailedOn2x2(dir, window);
        runOrFail(1, 2, ck, window, Routing.KEY);
        assertThat(counted(partLines())).isEqualTo(TestPipelines.expectedCounts(N, KEYS, window));
    }

    @Test
    void a_rescaled_run_that_fails_before_its_first_checkpoint_leaves_no_line_behind(@TempDir Path dir) throws Exception {
        WindowDefinition window = Windows.tumbling(500);
        Path ck = partFilesFailedOn2x2(dir, window);
        failAtRecords = N / 8; // on 4 x 1, from the same checkpoint: its parts get lines, never committed
        assertThatThrownBy(() -> run(4, 1, ck, window, Routing.KEY, Progress.WATERMARK, 0))
                .hasMessageContaining("injected failure before any checkpoint");
        try (var parts = Files.newDirectoryStream(files, "part-*-of4")) {
            long sizes = 0;
            for (Path part : parts) {
                sizes += Files.size(part);
            }
            assertThat(sizes).as("the failed 4 x 1 run wrote lines to its own parts").isPositive();
        }
        failAtRecords = 0;
        runOrFail(1, 2, ck, window, Routing.KEY);
        assertThat(counted(partLines())).isEqualTo(TestPipelines.expectedCounts(N, KEYS, window));
    }

    /** Part files into {@code dir/out}: a run on 2 x 2 fails after a few checkpoints into {@code dir/ck}, which it returns. */
    private static Path partFilesFailedOn2x2(Path dir, WindowDefinition window) {
        files = dir.resolve("out");
        Path ck = dir.resolve("ck");
        assertThatThrownBy(() -> run(2, 2, ck, window, Routing.KEY, Progress.WATERMARK, 6)).hasMessageContaining("injected failure");
        return ck;
    }

    /** Every line of every part file, stripped of its padding. */
    private static List<String> partLines() throws IOException {
        List<String> rows = new ArrayList<>();
        try (var parts = Files.newDirectoryStream(files, "part-*")) {
            for (Path part : parts) {
                Files.readAllLines(part).forEach(l -> rows.add(l.strip()));
            }
        }
        return rows;
    }

    @ParameterizedTest(name = "{0} routing={1}")
    @CsvSource({"tumbling,AIR", "sliding,KEY"})
    void a_job_stopped_with_a_savepoint_on_2x2_resumes_on_4x1_stops_again_and_ends_on_1x2_exactly_once(String kind, Routing routing,
                                                                                                         @TempDir Path dir)
            throws Exception {
        WindowDefinition window = kind.equals("tumbling") ? Windows.tumbling(500) : Windows.sliding(1000, 500);
        long first = stopped(2, 2, dir, window, routing, 6);
        long second = stopped(4, 1, dir, window, routing, 12);
        assertThat(second).isGreaterThan(first);
        List<String> rows = run(1, 2, dir, window, routing, Progress.WATERMARK, 0);
        assertThat(counted(rows)).isEqualTo(TestPipelines.expectedCounts(N, KEYS, window));
    }

    @Test
    void a_savepoint_that_cannot_be_written_is_given_up_and_the_job_goes_on_to_its_end(@TempDir Path dir) {
        AtomicBoolean diskFull = new AtomicBoolean();
        AtomicInteger writes = new AtomicInteger();
        CompletableFuture<Job> job = new CompletableFuture<>();
        CompletableFuture<CompletableFuture<Long>> savepoint = new CompletableFuture<>();
        ForwardingStore store = new ForwardingStore(Checkpoints.toDirectory(dir)) {
            @Override
            public void write(String j, long id, long base, int peer, int peers, Map<String, byte[]> parts) throws IOException {
                if (diskFull.get()) {
                    throw new IOException("disk full (injected)");
                }
                inner.write(j, id, base, peer, peers, parts);
                if (writes.incrementAndGet() == 3) {
                    diskFull.set(true); // from the savepoint on, nothing is written
                    job.thenAccept(jb -> savepoint.complete(jb.stopWithSavepoint()));
                }
            }
        };
        RowsSink sink = new RowsSink(true);
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(N, i -> i).paced(40_000, System.nanoTime())).withTimestamps(i -> i, 0).keyByLong(i -> i % KEYS)
                .window(Windows.tumbling(500)).aggregate(Aggregations.count()).writeTo(sink);
        Job running = p.submit(TestPipelines.config(2).batchSize(16).checkpoints(store, 30));
        job.complete(running);
        running.join();
        assertThat(running.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(savepoint.join()).isCompletedExceptionally();
        assertThatThrownBy(() -> savepoint.join().join()).hasMessageContaining("could not be written").hasMessageContaining("goes on");
        List<String> rows = new ArrayList<>();
        sink.rows.values().forEach(rows::addAll);
        assertThat(counted(rows)).isEqualTo(TestPipelines.expectedCounts(N, KEYS, Windows.tumbling(500)));
    }

    @Test
    void a_job_without_checkpoints_refuses_a_savepoint_naming_it() {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(10, i -> i)).writeTo(Sinks.collect());
        Job job = p.submit(TestPipelines.config(1));
        try {
            assertThatThrownBy(job::stopWithSavepoint).hasMessageContaining("job 'test' takes no checkpoints");
        } finally {
            job.join();
        }
    }

    @Test
    void hew_meld_progress_is_refused_onto_another_layout_naming_the_layout_and_nothing_is_deleted(@TempDir Path dir) throws Exception {
        WindowDefinition window = Windows.tumbling(500);
        assertThatThrownBy(() -> run(1, 2, dir, window, Routing.KEY, Progress.HEWMELD, 4)).hasMessageContaining("injected failure");
        assertThatThrownBy(() -> run(1, 3, dir, window, Routing.KEY, Progress.HEWMELD, 0))
                .isInstanceOf(CheckpointMismatchException.class).hasMessageContaining("1 peer(s) x 2 worker(s)")
                .hasMessageContaining("hew-meld");
        List<String> rows = run(1, 2, dir, window, Routing.KEY, Progress.HEWMELD, 0);
        assertThat(counted(rows)).isEqualTo(TestPipelines.expectedCounts(N, KEYS, window));
    }

    @Test
    void a_sink_that_cannot_move_its_output_fails_the_start_naming_it(@TempDir Path dir) throws Exception {
        WindowDefinition window = Windows.tumbling(500);
        assertThatThrownBy(() -> run(1, 2, dir, window, Routing.KEY, Progress.WATERMARK, 4)).hasMessageContaining("injected failure");
        assertThatThrownBy(() -> run(1, 3, dir, window, Routing.KEY, Progress.WATERMARK, 0, false, 0, new ArrayList<>()))
                .hasMessageContaining("v1#sink cannot resume onto another layout").hasMessageContaining(" of 3 (from 2 before)")
                .hasMessageContaining("CheckpointedSinkWriter.restoreRescaled");
        List<String> rows = run(1, 2, dir, window, Routing.KEY, Progress.WATERMARK, 0);
        assertThat(counted(rows)).as("the checkpoint was left as it was").isEqualTo(TestPipelines.expectedCounts(N, KEYS, window));
    }

    private static List<String> runOrFail(int peers, int workers, Path dir, WindowDefinition window, Routing routing) {
        try {
            return run(peers, workers, dir, window, routing, Progress.WATERMARK, 0);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
