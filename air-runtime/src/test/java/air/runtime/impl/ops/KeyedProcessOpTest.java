package air.runtime.impl.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import air.runtime.api.KeyedProcessFunction;
import air.runtime.api.OutputTag;
import air.runtime.api.ProcessContext;
import air.runtime.api.StateDescriptor;
import air.runtime.api.TimeDomain;
import air.runtime.api.TimeSource;
import air.runtime.api.ValueState;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.impl.shuffle.RecordBatch;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.SideOutputItem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** One keyed process instance driven by hand: side outputs, state time to live, timers that register timers. */
class KeyedProcessOpTest {

    private static final OperatorInfo INFO = OperatorInfo.of("process", "KeyedProcessOpTest.java:1");
    private static final OutputTag<String> READ = OutputTag.of("read");
    private static final OutputTag<String> UNREAD = OutputTag.of("unread");

    /** A record: a key and a label. */
    record In(String key, String label) { }

    /** Everything the operator emitted, as "value@time". */
    static final class Collected implements Inlet<Object> {
        final List<String> items = new ArrayList<>();

        @Override
        public void accept(long timestamp, Object item) {
            items.add(item + "@" + timestamp);
        }

        @Override
        public void emit(Object item) {
            accept(NO_TIMESTAMP, item);
        }

        @Override
        public void onWatermark(long watermark) {
        }

        @Override
        public void onEndOfBatch() {
        }

        @Override
        public void onComplete() {
        }
    }

    /** A processing-time clock moved by hand. */
    static final class Clock implements TimeSource {
        final AtomicLong millis = new AtomicLong();

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public long currentTimeMillis() {
            return millis.get();
        }
    }

    private static KeyedProcessOp op(KeyedProcessFunction<String, In, String> fn, List<StateDescriptor<?>> states,
                                     List<OutputTag<?>> read, TimeSource time, Collected out) {
        Function<In, String> key = In::key;
        return new KeyedProcessOp(INFO, new KeyHash(INFO, null, key), fn, states, read, true, time, out);
    }

    private static void send(KeyedProcessOp op, long time, In record) {
        op.onItem(0, new RecordBatch(0, 0, new long[] {time}, new Object[] {record}, 1));
    }

    @Test
    void an_output_to_a_tag_no_stage_reads_is_dropped_and_counted_and_a_null_tag_fails() {
        Collected out = new Collected();
        KeyedProcessOp op = op((In r, ProcessContext<String, String> ctx) -> {
            ctx.output(r.label().equals("null") ? null : r.label().equals("read") ? READ : UNREAD, r.label());
            ctx.emit("main " + r.label());
        }, List.of(), List.of(READ), TimeSource.SYSTEM, out);
        send(op, 1, new In("a", "read"));
        send(op, 2, new In("a", "unread"));
        assertThat(out.items).containsExactly(new SideOutputItem("read", "read") + "@1", "main read@1", "main unread@2");
        assertThat(op.droppedSideOutputs()).isEqualTo(1);
        assertThat(op.results()).as("dropped outputs are not results").isEqualTo(3);
        assertThatThrownBy(() -> send(op, 3, new In("a", "null"))).isInstanceOf(OperatorFailure.class)
                .hasRootCauseInstanceOf(IllegalArgumentException.class).hasStackTraceContaining("null tag");
    }

    static final StateDescriptor<ValueState<String>> LAST = StateDescriptor.<String>value("last").withTtl(10_000);

    /** Reports what the key's state holds at the record's time; a record labelled "write" writes it. */
    static final class TtlProbe implements KeyedProcessFunction<String, In, String> {
        @Override
        public void process(In r, ProcessContext<String, String> ctx) {
            ValueState<String> last = ctx.state(LAST);
            if (r.label().equals("write")) {
                last.update("w@" + ctx.timestamp());
            } else {
                ctx.emit(r.label() + " sees " + last.value());
            }
        }
    }

    @Test
    void what_a_record_sees_of_expiring_state_does_not_depend_on_the_order_records_arrive_in() {
        for (boolean laterFirst : new boolean[] {true, false}) {
            Collected out = new Collected();
            KeyedProcessOp op = op(new TtlProbe(), List.of(LAST), List.of(), TimeSource.SYSTEM, out);
            send(op, 0, new In("k", "write"));
            // both within the allowed disorder (no progress yet): 12 s is past the ttl, 9 s is not
            if (laterFirst) {
                send(op, 12_000, new In("k", "t12"));
                send(op, 9_000, new In("k", "t9"));
            } else {
                send(op, 9_000, new In("k", "t9"));
                send(op, 12_000, new In("k", "t12"));
            }
            assertThat(out.items).as("12 s first: " + laterFirst).containsExactlyInAnyOrder("t9 sees w@0@9000", "t12 sees null@12000");
            op.onProgress(10_000); // complete past 0 + ttl: dropped
            assertThat(op.keysWithState()).isZero();
        }
    }

    @Test
    void an_event_time_timer_registering_itself_again_fires_once() {
        Collected out = new Collected();
        KeyedProcessOp op = op(new KeyedProcessFunction<>() {
            @Override
            public void process(In r, ProcessContext<String, String> ctx) {
                ctx.registerEventTimeTimer(5);
            }

            @Override
            public void onTimer(long time, TimeDomain domain, ProcessContext<String, String> ctx) {
                ctx.emit("fired " + time);
                ctx.registerEventTimeTimer(time); // the same key and time: it has fired for it
            }
        }, List.of(), List.of(), TimeSource.SYSTEM, out);
        send(op, 1, new In("k", "x"));
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> op.onProgress(10));
        assertThat(out.items).containsExactly("fired 5@5");
        assertThat(op.pendingTimers()).isZero();
    }

    @Test
    void processing_time_timers_that_register_due_timers_fire_those_at_the_next_look_at_the_clock() {
        Clock clock = new Clock();
        clock.millis.set(100);
        Collected out = new Collected();
        KeyedProcessOp op = op(new KeyedProcessFunction<>() {
            @Override
            public void process(In r, ProcessContext<String, String> ctx) {
                ctx.registerProcessingTimeTimer(100);
            }

            @Override
            public void onTimer(long time, TimeDomain domain, ProcessContext<String, String> ctx) {
                ctx.emit("fired " + time);
                ctx.registerProcessingTimeTimer(time); // ignored: it has fired for that time
                ctx.registerProcessingTimeTimer(time - 1); // due already: at the next look
            }
        }, List.of(), List.of(), clock, out);
        send(op, 1, new In("k", "x")); // registers; the look came before it
        assertTimeoutPreemptively(Duration.ofSeconds(10), op::onIdle);
        assertThat(out.items).containsExactly("fired 100@1");
        assertTimeoutPreemptively(Duration.ofSeconds(10), op::onIdle);
        assertThat(out.items).containsExactly("fired 100@1", "fired 99@1");
        assertThat(op.pendingTimers()).isEqualTo(1);
    }
}
