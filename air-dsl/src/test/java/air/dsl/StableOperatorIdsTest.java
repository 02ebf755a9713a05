package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.dsl.CheckpointRecoveryTest.WatchedStore;
import air.runtime.CheckpointMismatchException;
import air.runtime.JobConfig;
import air.runtime.JobFailedException;
import air.runtime.api.WindowResult;
import air.runtime.impl.checkpoint.OperatorId;
import air.runtime.impl.checkpoint.OperatorIds;
import air.runtime.sink.CollectSink;
import air.runtime.sink.PartFilesSink;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stable operator ids: a checkpoint files each operator's state under its id (its
 * {@code named(...)} label, else the plan's structure), so a pipeline edited between runs resumes
 * what still matches. A pipeline rebuilt with its stages on other lines resumes everything (its
 * part files too), an added operator starts empty and a removed one's state is dropped, each
 * said in the log; a checkpoint of another pipeline under the job name is refused unless the run
 * starts afresh, and so is a named operator whose state changed shape; two stages of one name are
 * refused when the pipeline is planned.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StableOperatorIdsTest {

    private static final long N = 6_000;
    private static final long HOLD_AT = 1_000;

    /** What {@code body} logs (slf4j-simple writes to System.err). */
    private static String logged(Runnable body) {
        PrintStream saved = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setErr(saved);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    /** A map that throws once, as soon as {@code store} holds two checkpoints: the first run's failure mid-input. */
    private static long failOnce(long i, WatchedStore store, AtomicBoolean armed) {
        if (store.writes.get() >= 2 && armed.getAndSet(false)) {
            throw new IllegalStateException("injected failure");
        }
        return i;
    }

    private static JobConfig checkpointed(WatchedStore store, SimpleMeterRegistry registry) {
        return config(2).batchSize(16).checkpoints(store, 40).meterRegistry(registry);
    }

    private static PartFilesSink<WindowResult<Long, Long>> partFiles(Path out) {
        return Sinks.partFiles(out, r -> "[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value());
    }

    private static Map<String, Long> partLines(PartFilesSink<WindowResult<Long, Long>> files) throws IOException {
        Map<String, Long> got = new TreeMap<>();
        for (int instance = 0; instance < 2; instance++) {
            for (String line : Files.readAllLines(files.part(instance))) {
                int eq = line.lastIndexOf('=');
                assertThat(got.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1)))).as("line twice: " + line).isNull();
            }
        }
        return got;
    }

    private static Map<String, Long> collected(List<WindowResult<Long, Long>> items) {
        Map<String, Long> out = new TreeMap<>();
        for (WindowResult<Long, Long> r : items) {
            assertThat(out.put("[" + r.start() + "," + r.end() + ") " + r.key(), r.value())).as("result emitted twice: " + r).isNull();
        }
        return out;
    }

    private static double recoveries(SimpleMeterRegistry registry) {
        return registry.find("air.recoveries").counter() == null ? 0 : registry.find("air.recoveries").counter().count();
    }

    @Test
    void a_pipeline_rebuilt_with_its_stages_on_other_lines_resumes_every_state_and_keeps_its_part_files(@TempDir Path dir)
            throws IOException {
        WatchedStore store = new WatchedStore(dir.resolve("ck"));
        PartFilesSink<WindowResult<Long, Long>> files = partFiles(dir.resolve("out"));
        AtomicBoolean armed = new AtomicBoolean(true);
        Pipeline first = Pipeline.create();
        first.readFrom(new TestPipelines.HeldSource(N, HOLD_AT, () -> store.writes.get() >= 2)).map(i -> failOnce(i, store, armed))
                .withTimestamps(i -> i, 0).keyByLong(i -> i % 13).window(Windows.tumbling(100)).aggregate(Aggregations.count())
                .writeTo(files);
        assertThatThrownBy(() -> first.execute(checkpointed(store, new SimpleMeterRegistry())))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        assertThat(Files.size(files.part(0)) + Files.size(files.part(1))).as("the first run committed lines").isPositive();

        // the same job, edited: every stage on another line, a no-op stage more, and the failing map now harmless
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        Pipeline edited = Pipeline.create();
        Stage<Long> read = edited.readFrom(new TestPipelines.HeldSource(N, HOLD_AT, () -> true));

        Stage<Long> passed = read
                .map(i -> i)
                .filter(i -> i >= 0);

        Stage<Long> timed = passed.withTimestamps(i -> i, 0);
        timed
                .keyByLong(i -> i % 13)
                .window(Windows.tumbling(100))
                .aggregate(Aggregations.count())
                .writeTo(files);
        String log = logged(() -> edited.execute(checkpointed(store, second)));

        assertThat(recoveries(second)).as("the edited pipeline resumed").isEqualTo(1);
        assertThat(log).contains("RECOVERING").doesNotContain("start empty").doesNotContain("dropped:")
                .doesNotContain("nothing to resume from");
        assertThat(partLines(files)).as("the part files hold the uninterrupted run's rows: nothing truncated, nothing twice")
                .isEqualTo(TestPipelines.expectedCounts(N, 13, Windows.tumbling(100)));
    }

    /** A job with two named window aggregations over one source: {@code counts} (by i % 13) and {@code other} (named {@code name}). */
    private static void twoWindows(WatchedStore store, BooleanSupplier release, AtomicBoolean armed, CollectSink<WindowResult<Long, Long>> counts,
                                   String name, long modulus, CollectSink<WindowResult<Long, Long>> other, SimpleMeterRegistry registry) {
        Pipeline p = Pipeline.create();
        Stage<Long> timed = p.readFrom(new TestPipelines.HeldSource(N, HOLD_AT, release)).map(i -> failOnce(i, store, armed))
                .withTimestamps(i -> i, 0);
        timed.keyByLong(i -> i % 13).window(Windows.tumbling(100)).aggregate(Aggregations.count()).named("counts").writeTo(counts);
        timed.keyByLong(i -> i % modulus).window(Windows.tumbling(100)).aggregate(Aggregations.count()).named(name).writeTo(other);
        p.execute(checkpointed(store, registry));
    }

    @Test
    void an_added_operator_starts_empty_a_removed_ones_state_is_dropped_and_the_rest_resumes_each_said_in_the_log(@TempDir Path dir) {
        WatchedStore store = new WatchedStore(dir);
        CollectSink<WindowResult<Long, Long>> counts = Sinks.collect();
        assertThatThrownBy(() -> twoWindows(store, () -> store.writes.get() >= 2, new AtomicBoolean(true), counts, "sevens", 7,
                Sinks.collect(), new SimpleMeterRegistry())).isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");

        SimpleMeterRegistry second = new SimpleMeterRegistry();
        CollectSink<WindowResult<Long, Long>> fives = Sinks.collect();
        String log = logged(() -> twoWindows(store, () -> true, new AtomicBoolean(false), counts, "fives", 5, fives, second));

        assertThat(recoveries(second)).isEqualTo(1);
        assertThat(collected(counts.items())).as("the window both pipelines have resumed exactly once")
                .isEqualTo(TestPipelines.expectedCounts(N, 13, Windows.tumbling(100)));
        assertThat(fives.items()).as("the added window ran, from the checkpoint's source positions on").isNotEmpty();
        String added = log.lines().filter(l -> l.contains("these operators start empty")).findFirst().orElseThrow();
        assertThat(added).contains("INFO").contains("fives#window-partial (new)").contains("fives#window-final (new)")
                .doesNotContain("counts#");
        String dropped = log.lines().filter(l -> l.contains("dropped:")).findFirst().orElseThrow();
        assertThat(dropped).contains("WARN").contains("sevens#window-partial (no such operator any more)")
                .contains("sevens#window-final (no such operator any more)").doesNotContain("counts#");
    }

    @Test
    void a_named_operator_whose_state_changed_shape_is_refused_naming_it_and_both_shapes(@TempDir Path dir) {
        WatchedStore store = new WatchedStore(dir);
        assertThatThrownBy(() -> twoWindows(store, () -> store.writes.get() >= 2, new AtomicBoolean(true), Sinks.collect(), "sevens", 7,
                Sinks.collect(), new SimpleMeterRegistry())).isInstanceOf(JobFailedException.class);
        Pipeline p = Pipeline.create(); // "counts" now counts per 200 ms: its saved frames are of another window
        p.readFrom(new TestPipelines.HeldSource(N, HOLD_AT, () -> true)).withTimestamps(i -> i, 0).keyByLong(i -> i % 13)
                .window(Windows.tumbling(200)).aggregate(Aggregations.count()).named("counts").writeTo(Sinks.collect());
        assertThatThrownBy(() -> p.execute(checkpointed(store, new SimpleMeterRegistry())))
                .isInstanceOf(CheckpointMismatchException.class).hasMessageContaining("counts#window-final")
                .hasMessageContaining("tumbling(100ms)").hasMessageContaining("tumbling(200ms)").hasMessageContaining(dir.toString())
                .hasMessageContaining("new name");
    }

    @Test
    void two_stages_of_one_name_are_refused_when_the_pipeline_is_planned_naming_both_call_sites() {
        Pipeline p = Pipeline.create();
        Stage<Long> read = p.readFrom(Sources.generate(10, i -> i));
        read.map(i -> i + 1).named("twice").writeTo(Sinks.collect());
        read.filter(i -> i > 2).named("twice").writeTo(Sinks.collect());
        assertThatThrownBy(() -> p.execute(config(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("two stages are named 'twice'").hasMessageContaining("map at StableOperatorIdsTest.java:")
                .hasMessageContaining("filter at StableOperatorIdsTest.java:");
    }

    private static List<OperatorId> ids(Pipeline p) {
        return OperatorIds.of(p.plan(config(2))).stateful();
    }

    private static Function<OperatorId, String> idAndDescriptor() {
        return o -> o.id() + " = " + o.descriptor();
    }

    @Test
    void ids_and_descriptors_come_from_names_and_structure_never_from_call_sites() {
        Pipeline a = Pipeline.create();
        a.readFrom(Sources.generate(100, i -> i)).withTimestamps(i -> i, 0).keyByLong(i -> i % 3).window(Windows.tumbling(10))
                .aggregate(Aggregations.count()).writeTo(Sinks.collect());
        Pipeline b = Pipeline.create();
        Stage<Long> read = b.readFrom(Sources.generate(100, i -> i));

        read.map(i -> i).withTimestamps(i -> i, 0)
                .keyByLong(i -> i % 3)
                .window(Windows.tumbling(10))
                .aggregate(Aggregations.count())
                .writeTo(Sinks.collect());
        assertThat(ids(a)).extracting(OperatorId::id)
                .containsExactly("v0#source", "v0#timestamps", "v1#window-partial", "v1#window-final", "v1#sink");
        assertThat(ids(b)).extracting(idAndDescriptor()).isEqualTo(ids(a).stream().map(idAndDescriptor()).toList());
        assertThat(ids(a)).allSatisfy(o -> assertThat(o.descriptor()).doesNotContain(".java:"));
    }

    @Test
    void a_named_window_join_names_both_partial_halves_and_a_merge_numbers_the_copies_of_what_follows_it() {
        Pipeline p = Pipeline.create();
        Stage<Long> left = p.readFrom(Sources.generate(100, i -> i)).withTimestamps(i -> i, 0);
        Stage<Long> right = p.readFrom(Sources.generate(100, i -> i)).withTimestamps(i -> i, 0);
        left.keyByLong(i -> i % 3).window(Windows.tumbling(10))
                .join(right.keyByLong(i -> i % 3).window(Windows.tumbling(10)), Aggregations.count(), Aggregations.count(),
                        (k, l, r) -> l + r)
                .named("pairs").writeTo(Sinks.collect());
        left.merge(right).keyByLong(i -> i % 5).window(Windows.tumbling(10)).aggregate(Aggregations.count()).named("both")
                .writeTo(Sinks.collect());
        assertThat(ids(p)).extracting(OperatorId::id).contains("pairs#window-partial-0", "pairs#window-partial-1", "pairs#window-join",
                "both#window-partial", "both#window-partial.1", "both#window-final");
        OperatorId join = ids(p).stream().filter(o -> o.id().equals("pairs#window-join")).findFirst().orElseThrow();
        assertThat(join.named()).isTrue();
        assertThat(join.inputs()).containsExactly("pairs#window-partial-0", "pairs#window-partial-1");
    }
}
