package air.test.ops;

import static org.assertj.core.api.Assertions.assertThat;

import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Sources;
import air.runtime.JobConfig;
import air.runtime.api.Codecs;
import air.runtime.api.KeyedProcessFunction;
import air.runtime.api.ProcessContext;
import air.runtime.api.StateDescriptor;
import air.runtime.api.TimeDomain;
import air.runtime.api.ValueState;
import air.runtime.impl.ops.KeyHash;
import air.runtime.impl.shuffle.RecordBatch;
import air.runtime.plan.OperatorInfo;
import air.test.Emitted;
import air.test.OperatorCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToLongFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * KeyedProcessOp driven by the harness: a running sum per key in value state, and an event-time
 * timer at the last millisecond of each 10 ms bucket a key has records in, against a plain loop.
 */
class KeyedProcessOpHarnessTest {

    static final StateDescriptor<ValueState<Long>> SUM = StateDescriptor.value("sum", Codecs.LONG);

    /** The function under test. */
    static final class RunningSum implements KeyedProcessFunction<Long, Ev, String> {
        @Override
        public void process(Ev record, ProcessContext<Long, String> ctx) {
            ValueState<Long> sum = ctx.state(SUM);
            long s = (sum.value() == null ? 0 : sum.value()) + record.value();
            sum.update(s);
            ctx.emit("k" + ctx.key() + " sum=" + s);
            ctx.registerEventTimeTimer(Math.floorDiv(record.time(), 10) * 10 + 9);
        }

        @Override
        public void onTimer(long time, TimeDomain domain, ProcessContext<Long, String> ctx) {
            ctx.emit("timer k" + ctx.key() + " at " + time + " sum=" + ctx.state(SUM).value());
        }
    }

    static List<String> plain(List<Ev> events) {
        List<String> out = new ArrayList<>();
        Map<Long, Long> sums = new TreeMap<>();
        Map<Long, TreeSet<Long>> timers = new TreeMap<>();
        for (Ev e : events) {
            long s = sums.merge(e.key(), e.value(), Long::sum);
            out.add("k" + e.key() + " sum=" + s + "@" + e.time());
            timers.computeIfAbsent(e.key(), k -> new TreeSet<>()).add(Math.floorDiv(e.time(), 10) * 10 + 9);
        }
        timers.forEach((key, times) -> times.forEach(t -> out.add("timer k" + key + " at " + t + " sum="
                + events.stream().filter(e -> e.key() == key && e.time() <= t).mapToLong(Ev::value).sum() + "@" + t)));
        return out;
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void sums_and_timers_equal_a_plain_loop_however_it_is_driven(long seed) {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.<Ev>of()).withTimestamps(Ev::time, 0).keyByLong(Ev::key).process(new RunningSum(), SUM).writeTo(Sinks.collect());
        Planned op = Planned.of(p, JobConfig.defaults());
        List<Ev> events = Ev.random(seed, 24, 3, 60);
        KeyHash keys = new KeyHash(OperatorInfo.of("key", "test"), (ToLongFunction<Ev>) Ev::key, null);
        OperatorCheck.Router byKey = (input, item, n) -> keys.destination(((RecordBatch) item).records[0], n);
        List<Emitted> out = OperatorCheck.of(op.factory(), () -> Planned.batches(events, 10)).hewMeld(10, 0)
                .rescale(2, 1, byKey).rescale(1, 2, byKey).verify();
        assertThat(out).isNotEmpty().map(Emitted::toString).containsExactlyInAnyOrderElementsOf(plain(events));
    }
}
