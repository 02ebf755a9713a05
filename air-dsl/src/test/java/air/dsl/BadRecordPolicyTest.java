package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.JobConfig;
import air.runtime.JobFailedException;
import air.runtime.api.BadRecordPolicy;
import air.runtime.api.DeadLetter;
import air.runtime.api.KeyedProcessFunction;
import air.runtime.api.ProcessContext;
import air.runtime.api.TimeDomain;
import air.runtime.sink.CollectSink;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongPredicate;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Records a user function throws on, under each {@link BadRecordPolicy}: {@code fail} fails the
 * job naming the stage and the record, {@code skip} drops exactly those records and counts them,
 * {@code deadLetter} writes each once to its sink, also across a failure and a restart from a
 * checkpoint. A stage's own policy overrides the job's; a policy where no user function runs is
 * refused at the call.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BadRecordPolicyTest {

    private static final long N = 200;
    private static final LongPredicate BAD = i -> i % 7 == 3;

    /** The stages whose function a policy applies to. */
    enum Kind { MAP, FILTER, FLAT_MAP, PROCESS }

    /** {@code i}, or a throw when {@code i} is bad. */
    private static long parse(long i) {
        if (BAD.test(i)) {
            throw new IllegalArgumentException("bad record " + i);
        }
        return i;
    }

    /** The stage of {@code kind} whose function is {@link #parse}, with {@code policy} of its own (null: the job's). */
    private static Stage<Long> parsing(Kind kind, Stage<Long> in, BadRecordPolicy policy) {
        Stage<Long> s = switch (kind) {
            case MAP -> in.map(i -> parse(i));
            case FILTER -> in.filter(i -> parse(i) >= 0);
            case FLAT_MAP -> in.flatMap(i -> List.of(parse(i)));
            case PROCESS -> in.keyBy(i -> i % 5).process((KeyedProcessFunction<Long, Long, Long>) (i, ctx) -> ctx.emit(parse(i)));
        };
        return policy == null ? s : s.onBadRecord(policy);
    }

    private static String kindName(Kind kind) {
        return switch (kind) {
            case MAP -> "map";
            case FILTER -> "filter";
            case FLAT_MAP -> "flatMap";
            case PROCESS -> "process";
        };
    }

    private static List<Long> good() {
        return LongStream.range(0, N).filter(BAD.negate()).boxed().toList();
    }

    private static List<String> bad() {
        return LongStream.range(0, N).filter(BAD).mapToObj(Long::toString).toList();
    }

    /** The one {@code air.records.bad} counter of {@code policy}, checked to name the stage. */
    private static double badCount(SimpleMeterRegistry registry, String policy, String operatorPrefix) {
        Collection<Counter> counters = registry.find("air.records.bad").tag("job", "test").tag("policy", policy).counters();
        assertThat(counters).hasSize(1);
        Counter c = counters.iterator().next();
        assertThat(c.getId().getTag("operator")).startsWith(operatorPrefix);
        return c.count();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void fail_is_the_default_and_names_the_operator_and_the_record(Kind kind) {
        Pipeline p = Pipeline.create();
        parsing(kind, p.readFrom(Sources.generate(N, i -> i)), null).writeTo(Sinks.collect());
        assertThatThrownBy(() -> p.execute(config(1)))
                .isInstanceOf(JobFailedException.class)
                .hasMessageContaining("operator " + kindName(kind) + "@BadRecordPolicyTest.java:")
                .hasMessageContaining("threw on 3")
                .hasMessageContaining(kind == Kind.PROCESS ? "shuffle item #" : "source instance 0, record at position 3")
                .hasRootCauseMessage("bad record 3");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void an_explicit_fail_policy_fails_like_the_default(Kind kind) {
        Pipeline p = Pipeline.create();
        parsing(kind, p.readFrom(Sources.generate(N, i -> i)), BadRecordPolicy.fail()).writeTo(Sinks.collect());
        assertThatThrownBy(() -> p.execute(config(1).onBadRecord(BadRecordPolicy.skip())))
                .isInstanceOf(JobFailedException.class)
                .hasMessageContaining("operator " + kindName(kind) + "@BadRecordPolicyTest.java:")
                .hasMessageContaining("threw on 3");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void skip_drops_exactly_the_failing_records_and_counts_them(Kind kind) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CollectSink<Long> out = Sinks.collect();
        Pipeline p = Pipeline.create();
        parsing(kind, p.readFrom(Sources.generate(N, i -> i)), BadRecordPolicy.skip()).writeTo(out);
        p.execute(config(2).meterRegistry(registry));
        assertThat(out.items()).containsExactlyInAnyOrderElementsOf(good());
        assertThat(badCount(registry, "skip", kindName(kind) + "@BadRecordPolicyTest.java:")).isEqualTo(bad().size());
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void dead_letter_receives_every_failing_record_with_its_error(Kind kind) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CollectSink<Long> out = Sinks.collect();
        CollectSink<DeadLetter> dead = Sinks.collect();
        Pipeline p = Pipeline.create();
        parsing(kind, p.readFrom(Sources.generate(N, i -> i)), BadRecordPolicy.deadLetter(dead)).writeTo(out);
        p.execute(config(2).meterRegistry(registry));

        assertThat(out.items()).containsExactlyInAnyOrderElementsOf(good());
        assertThat(dead.items()).extracting(DeadLetter::rawText).containsExactlyInAnyOrderElementsOf(bad());
        assertThat(out.items().size() + dead.items().size()).isEqualTo(N);
        for (DeadLetter d : dead.items()) {
            assertThat(d.error()).isEqualTo("java.lang.IllegalArgumentException: bad record " + d.rawText());
            assertThat(d.operator()).startsWith(kindName(kind) + "@BadRecordPolicyTest.java:");
            // behind a source the record's origin is what its reader says of its position (the generator's: its batch's); past a
            // shuffle it is not known
            assertThat(d.origin()).startsWith(kind == Kind.PROCESS ? "unknown" : "record at position ");
        }
        assertThat(badCount(registry, "dead-letter", kindName(kind) + "@BadRecordPolicyTest.java:")).isEqualTo(bad().size());
    }

    @Test
    void the_jobs_policy_applies_to_every_stage_without_its_own() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CollectSink<Long> out = Sinks.collect();
        CollectSink<DeadLetter> dead = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(N, i -> i))
                .map(i -> parse(i)).named("parse")
                .filter(i -> {
                    if (i % 11 == 5) {
                        throw new IllegalStateException("odd one " + i);
                    }
                    return true;
                }).named("check")
                .writeTo(out);
        p.execute(config(2).meterRegistry(registry).onBadRecord(BadRecordPolicy.deadLetter(dead)));

        List<Long> kept = good().stream().filter(i -> i % 11 != 5).toList();
        assertThat(out.items()).containsExactlyInAnyOrderElementsOf(kept);
        // both stages write to the one sink, each on writers of its own
        Map<String, List<String>> byStage = new TreeMap<>();
        for (DeadLetter d : dead.items()) {
            byStage.computeIfAbsent(d.operator().substring(0, d.operator().indexOf(' ')), k -> new ArrayList<>()).add(d.rawText());
        }
        List<String> odd = good().stream().filter(i -> i % 11 == 5).map(String::valueOf).toList();
        assertThat(byStage.keySet()).containsExactly("check", "parse");
        assertThat(byStage.get("parse")).containsExactlyInAnyOrderElementsOf(bad());
        assertThat(byStage.get("check")).containsExactlyInAnyOrderElementsOf(odd);
        assertThat(kept.size() + dead.items().size()).isEqualTo(N);
        assertThat(registry.find("air.records.bad").tag("operator", "parse").counter().count()).isEqualTo(bad().size());
        assertThat(registry.find("air.records.bad").tag("operator", "check").counter().count()).isEqualTo(odd.size());
    }

    @Test
    void a_stages_policy_overrides_the_jobs() {
        CollectSink<Long> out = Sinks.collect();
        CollectSink<DeadLetter> dead = Sinks.collect();
        Pipeline p = Pipeline.create();
        parsing(Kind.MAP, p.readFrom(Sources.generate(N, i -> i)), BadRecordPolicy.skip()).writeTo(out);
        JobConfig deadLetters = config(2).onBadRecord(BadRecordPolicy.deadLetter(dead));
        assertThat(p.explain(deadLetters)).contains("[bad records: skip]").doesNotContain("dead");
        p.execute(deadLetters);
        assertThat(out.items()).containsExactlyInAnyOrderElementsOf(good());

        Pipeline q = Pipeline.create();
        parsing(Kind.FLAT_MAP, q.readFrom(Sources.generate(N, i -> i)), BadRecordPolicy.fail()).writeTo(Sinks.collect());
        assertThatThrownBy(() -> q.execute(config(1).onBadRecord(BadRecordPolicy.deadLetter(Sinks.collect()))))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("operator flatMap@BadRecordPolicyTest.java:")
                .hasMessageContaining("threw on 3");
    }

    @Test
    void a_map_returning_null_is_a_bad_record_too() {
        CollectSink<Long> out = Sinks.collect();
        CollectSink<DeadLetter> dead = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(N, i -> i)).map(i -> BAD.test(i) ? null : i).onBadRecord(BadRecordPolicy.deadLetter(dead)).writeTo(out);
        p.execute(config(2));
        assertThat(out.items()).containsExactlyInAnyOrderElementsOf(good());
        assertThat(dead.items()).extracting(DeadLetter::rawText).containsExactlyInAnyOrderElementsOf(bad());
        assertThat(dead.items()).allSatisfy(d -> assertThat(d.error()).contains("map functions must not return null"));
    }

    /** Emits each record's key at its time + 1 from an event-time timer, which throws at times that are multiples of 10. */
    private static final class Echo implements KeyedProcessFunction<Long, Long, Long> {
        @Override
        public void process(Long i, ProcessContext<Long, Long> ctx) {
            ctx.registerEventTimeTimer(i + 1);
        }

        @Override
        public void onTimer(long time, TimeDomain domain, ProcessContext<Long, Long> ctx) {
            if (time % 10 == 0) {
                throw new IllegalStateException("timer at " + time);
            }
            ctx.emit(time - 1);
        }
    }

    @Test
    void a_process_functions_timers_follow_its_policy() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CollectSink<Long> out = Sinks.collect();
        CollectSink<DeadLetter> dead = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(N, i -> i)).withTimestamps(i -> i, 0).keyBy(i -> i % 3).process(new Echo())
                .onBadRecord(BadRecordPolicy.deadLetter(dead)).writeTo(out);
        p.execute(config(2).meterRegistry(registry));
        assertThat(out.items()).containsExactlyInAnyOrderElementsOf(LongStream.range(0, N).filter(i -> (i + 1) % 10 != 0).boxed().toList());
        assertThat(dead.items()).extracting(DeadLetter::error)
                .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, N / 10).mapToObj(k -> "java.lang.IllegalStateException: timer at "
                        + k * 10).toList());
        assertThat(dead.items()).allSatisfy(d -> assertThat(d.rawText()).startsWith("EVENT_TIME ").contains(" for key "));
        assertThat(badCount(registry, "dead-letter", "process@BadRecordPolicyTest.java:")).isEqualTo(N / 10);
    }

    @Test
    void a_failure_downstream_of_a_process_function_is_not_its_bad_record() {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(N, i -> i)).keyBy(i -> i % 5)
                .process((KeyedProcessFunction<Long, Long, Long>) (i, ctx) -> ctx.emit(i)).onBadRecord(BadRecordPolicy.skip())
                .map(i -> parse(i))
                .writeTo(Sinks.collect());
        assertThatThrownBy(() -> p.execute(config(1))).isInstanceOf(JobFailedException.class)
                .hasMessageContaining("operator map@BadRecordPolicyTest.java:").hasMessageContaining("threw on 3");
    }

    @Test
    void the_plan_shows_where_dead_letters_go() {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(N, i -> i)).map(i -> parse(i)).onBadRecord(BadRecordPolicy.deadLetter(Sinks.collect()))
                .filter(i -> i > 0).onBadRecord(BadRecordPolicy.skip()).writeTo(Sinks.collect());
        String plan = p.explain(config(2));
        assertThat(plan).contains("[bad records: dead-letter]").contains("[bad records: skip]")
                .contains("records to branch 1, dead letters to branch 2").contains("sink collect dead-letters@BadRecordPolicyTest.java:");
    }

    @Test
    void a_policy_where_no_user_function_runs_is_refused_naming_the_call() {
        Pipeline p = Pipeline.create();
        Stage<Long> source = p.readFrom(Sources.generate(N, i -> i));
        assertThatThrownBy(() -> source.onBadRecord(BadRecordPolicy.skip())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("onBadRecord(skip) at BadRecordPolicyTest.java:")
                .hasMessageContaining("source@BadRecordPolicyTest.java:")
                .hasMessageContaining("the source's own policy");
        assertThatThrownBy(() -> source.rebalance().onBadRecord(BadRecordPolicy.deadLetter(Sinks.collect())))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("onBadRecord(dead-letter) at BadRecordPolicyTest.java:")
                .hasMessageContaining("runs no function of yours");
        Stage<?> counts = source.withTimestamps(i -> i, 0).keyBy(i -> i % 3).window(Windows.tumbling(10)).aggregate(Aggregations.count());
        assertThatThrownBy(() -> counts.onBadRecord(BadRecordPolicy.skip())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("onBadRecord(skip) at BadRecordPolicyTest.java:")
                .hasMessageContaining("window aggregations and joins fail the job whatever the policy");
        assertThatThrownBy(() -> source.map(i -> i).onBadRecord(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("onBadRecord(policy) at BadRecordPolicyTest.java:");
        assertThatThrownBy(() -> JobConfig.defaults().onBadRecord(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void a_dead_letter_sink_that_is_also_an_output_is_refused_naming_the_call() {
        CollectSink<Object> both = Sinks.collect();
        Pipeline p = Pipeline.create();
        Stage<Long> parsed = p.readFrom(Sources.generate(N, i -> i)).map(i -> parse(i)).onBadRecord(BadRecordPolicy.deadLetter(both));
        parsed.writeTo(both);
        assertThatThrownBy(() -> p.explain(config(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("onBadRecord(dead-letter) at BadRecordPolicyTest.java:")
                .hasMessageContaining("is also the output of sink@BadRecordPolicyTest.java:");

        Pipeline q = Pipeline.create();
        q.readFrom(Sources.generate(N, i -> i)).map(i -> parse(i)).writeTo(both);
        assertThatThrownBy(() -> q.execute(config(1).onBadRecord(BadRecordPolicy.deadLetter(both))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("JobConfig.onBadRecord(dead-letter), the default of map@BadRecordPolicyTest.java:");
    }

    @Test
    void under_checkpoints_a_dead_letter_sink_must_be_exactly_once(@TempDir Path dir) {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(N, i -> i)).map(i -> parse(i)).onBadRecord(BadRecordPolicy.deadLetter(Sinks.callback(d -> { })))
                .writeTo(Sinks.collect());
        assertThatThrownBy(() -> p.execute(config(1).checkpoints(Checkpoints.toDirectory(dir), 50)))
                .hasMessageContaining("dead-letters@BadRecordPolicyTest.java:")
                .hasMessageContaining("is not exactly-once");
    }

    /**
     * A run into {@code out} and {@code dead} that fails once {@code failAfterWrites} checkpoints are
     * written (0: never); its sources hold a sixth of the way in until then, and the failure comes a
     * hundred records per instance later, so that the dead letters of those are written after the
     * newest checkpoint and must be rolled back.
     */
    private static void checkpointedRun(CheckpointRecoveryTest.WatchedStore store, CollectSink<Long> out, CollectSink<DeadLetter> dead,
                                        int failAfterWrites, SimpleMeterRegistry registry) {
        AtomicBoolean armed = new AtomicBoolean(failAfterWrites > 0);
        Pipeline p = Pipeline.create();
        p.readFrom(new TestPipelines.HeldSource(6_000, 500, () -> store.writes.get() >= failAfterWrites))
                .map(i -> parse(i)).onBadRecord(BadRecordPolicy.deadLetter(dead))
                .map(i -> {
                    if (armed.get() && i >= 1_200 && store.writes.get() >= failAfterWrites && armed.getAndSet(false)) {
                        throw new IllegalStateException("injected failure");
                    }
                    return i;
                })
                .writeTo(out);
        p.execute(config(2).batchSize(16).checkpoints(store, 40).meterRegistry(registry));
    }

    @Test
    void dead_letters_are_written_once_across_a_failure_and_a_restart(@TempDir Path dir) {
        CheckpointRecoveryTest.WatchedStore store = new CheckpointRecoveryTest.WatchedStore(dir);
        CollectSink<Long> out = Sinks.collect();
        CollectSink<DeadLetter> dead = Sinks.collect();
        assertThatThrownBy(() -> checkpointedRun(store, out, dead, 2, new SimpleMeterRegistry())).isInstanceOf(JobFailedException.class)
                .hasMessageContaining("injected failure");
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        checkpointedRun(store, out, dead, 0, second);
        assertThat(second.find("air.recoveries").counter().count()).as("the second run resumed from a checkpoint").isEqualTo(1);

        assertThat(out.items()).containsExactlyInAnyOrderElementsOf(LongStream.range(0, 6_000).filter(BAD.negate()).boxed().toList());
        assertThat(dead.items()).extracting(DeadLetter::rawText)
                .containsExactlyInAnyOrderElementsOf(LongStream.range(0, 6_000).filter(BAD).mapToObj(Long::toString).toList());
    }
}
