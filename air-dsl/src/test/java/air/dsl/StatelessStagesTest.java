package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.Job;
import air.runtime.JobStatus;
import air.runtime.JobSummary;
import air.runtime.sink.CollectSink;
import air.runtime.source.PushSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StatelessStagesTest {

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2, 4})
    void map_filter_flatMap_give_the_hand_computed_multiset(int workers) {
        Pipeline p = Pipeline.create();
        CollectSink<Long> sink = Sinks.collect();
        p.readFrom(Sources.generate(10, i -> i + 1))
                .filter(x -> x % 2 == 0)
                .map(x -> x * 10)
                .flatMap(x -> List.of(x, x + 1))
                .writeTo(sink);
        p.execute(config(workers));
        assertThat(sink.items()).containsExactlyInAnyOrder(20L, 21L, 40L, 41L, 60L, 61L, 80L, 81L, 100L, 101L);
    }

    @Test
    void collection_and_supplier_sources() {
        Pipeline p = Pipeline.create();
        CollectSink<String> sink = Sinks.collect();
        p.readFrom(Sources.of("x", "y", "z")).map(String::toUpperCase).writeTo(sink);
        p.execute(config(2));
        assertThat(sink.items()).containsExactlyInAnyOrder("X", "Y", "Z");

        long[] next = {0};
        Pipeline q = Pipeline.create();
        CollectSink<Long> counted = Sinks.collect();
        q.readFrom(Sources.fromSupplier(5, () -> next[0]++)).writeTo(counted);
        q.execute(config(3));
        assertThat(counted.items()).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L);
    }

    @Test
    void callback_sink_sees_every_record_one_call_at_a_time() {
        List<Long> seen = new ArrayList<>();
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(1000, i -> i)).writeTo(Sinks.callback(seen::add));
        p.execute(config(2));
        assertThat(seen).hasSize(1000).containsExactlyInAnyOrderElementsOf(LongStream.range(0, 1000).boxed().toList());
    }

    @Test
    void print_and_log_sinks_accept_every_record() {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            Pipeline p = Pipeline.create();
            p.readFrom(Sources.generate(3, i -> i)).writeTo(Sinks.print("n=", String::valueOf));
            p.execute(config(2));
        } finally {
            System.setOut(original);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8).lines()).containsExactlyInAnyOrder("n=0", "n=1", "n=2");

        Pipeline q = Pipeline.create();
        q.readFrom(Sources.generate(3, i -> i)).writeTo(Sinks.log("air.test.results"));
        Job job = q.execute(config(1));
        assertThat(job.summary().ofKind("sink")).singleElement().extracting(JobSummary.Operator::recordsIn).isEqualTo(3L);
    }

    @Test
    void file_sink_writes_one_line_per_record(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("out.txt");
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(5, i -> i)).writeTo(Sinks.file(file, i -> "n=" + i));
        p.execute(config(2));
        assertThat(Files.readAllLines(file)).containsExactlyInAnyOrder("n=0", "n=1", "n=2", "n=3", "n=4");
    }

    @Test
    void meters_count_records_in_and_out_per_operator_while_the_job_runs_and_the_summary_keeps_them() throws InterruptedException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PushSource<Long> input = Sources.push(1_000); // the job runs until the source is closed: its meters can be read meanwhile
        Pipeline p = Pipeline.create();
        p.readFrom(input)
                .filter(x -> x < 30).named("keep-small")
                .map(x -> x)
                .writeTo(Sinks.collect());
        Job job = p.submit(config(1).meterRegistry(registry));
        for (long i = 0; i < 100; i++) {
            input.offer(i);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while ((registry.get("air.records.in").tag("operator", "keep-small").functionCounter().count() < 100
                || registry.get("air.records.in").tag("kind", "sink").functionCounter().count() < 30) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000L); // polls a meter; the job runs on its own threads
        }
        assertThat(registry.get("air.records.in").tag("operator", "keep-small").functionCounter().count()).isEqualTo(100);
        assertThat(registry.get("air.records.out").tag("operator", "keep-small").functionCounter().count()).isEqualTo(30);
        assertThat(registry.get("air.records.out").tag("kind", "source").functionCounter().count()).isEqualTo(100);
        // an unnamed operator's tag is its kind and plan position, never its source line
        assertThat(registry.get("air.records.in").tag("kind", "map").functionCounter().getId().getTag("operator")).isEqualTo("map@v0.2");
        input.close();
        job.join();
        assertThat(registry.get("air.job.duration").tag("status", "FINISHED").timer().count()).isEqualTo(1);
        JobSummary s = job.summary();
        assertThat(s.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(s.recordsIn()).isEqualTo(100);
        assertThat(s.operator("keep-small").recordsIn()).isEqualTo(100);
        assertThat(s.operator("keep-small").recordsOut()).isEqualTo(30);
        assertThat(s.operator("map@v0.2").recordsOut()).isEqualTo(30);
        assertThatThrownBy(() -> s.operator("nope")).hasMessageContaining("has no operator named 'nope'").hasMessageContaining("keep-small");
    }

    @Test
    void two_runs_of_one_job_name_at_once_keep_their_own_meters() throws InterruptedException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PushSource<Long> input = Sources.push(10);
        Pipeline running = Pipeline.create();
        running.readFrom(input).writeTo(Sinks.collect());
        Job first = running.submit(config(1).meterRegistry(registry));
        int before = registry.find("air.records.in").meters().size();
        Pipeline other = Pipeline.create();
        other.readFrom(Sources.generate(5, x -> x)).writeTo(Sinks.collect());
        other.execute(config(1).meterRegistry(registry)); // the same job name, ended while the first runs
        assertThat(registry.find("air.records.in").meters()).as("the first run's meters outlive the second's end").hasSize(before);
        input.close();
        first.join();
        assertThat(registry.find("air.records.in").meters()).isEmpty();
    }

    @Test
    void an_ended_job_leaves_no_meter_that_holds_its_operators_behind() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        for (int i = 0; i < 1_000; i++) {
            Pipeline p = Pipeline.create();
            p.readFrom(Sources.generate(10, x -> x)).withTimestamps(x -> x, 0).keyByLong(x -> x % 2).window(Windows.tumbling(5))
                    .aggregate(Aggregations.count()).writeTo(Sinks.collect());
            p.execute(config(2).meterRegistry(registry));
        }
        // what is left adds up over runs of the same job name and holds no job: air.job.duration
        assertThat(registry.getMeters()).extracting(m -> m.getId().getName()).containsOnly("air.job.duration");
        assertThat(registry.get("air.job.duration").timer().count()).isEqualTo(1_000);
    }

    @Test
    void results_are_the_same_with_and_without_per_job_operator_classes() {
        for (boolean specialize : new boolean[] {true, false}) {
            Pipeline p = Pipeline.create();
            CollectSink<Long> sink = Sinks.collect();
            p.readFrom(Sources.generate(1000, i -> i)).map(i -> i * 2).filter(i -> i % 3 == 0).writeTo(sink);
            p.execute(config(2).specializeOperators(specialize));
            assertThat(sink.items().stream().mapToLong(Long::longValue).sum())
                    .isEqualTo(LongStream.range(0, 1000).map(i -> i * 2).filter(i -> i % 3 == 0).sum());
        }
    }
}
