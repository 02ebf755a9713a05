package air.runtime.impl.ops;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.api.TimeSource;
import air.runtime.operator.Rescale;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Event time per split: a record in order within its split is never late however far another
 * split was read ahead; the watermark is the least over the splits that hold it; splits that give
 * nothing hold it until idle, finished ones stop holding; a restore keeps each split's progress.
 */
class SplitTimestampOpTest {

    private static final OperatorInfo INFO = OperatorInfo.of("withTimestamps", "SplitTimestampOpTest.java:1");
    private static final long MS = 1_000_000L;

    /** What reaches the stage behind: records and watermarks in order, and which records it judges late. */
    static final class Behind implements Inlet<Long> {
        final List<String> events = new ArrayList<>();
        final List<Long> late = new ArrayList<>();
        long watermark = Long.MIN_VALUE;

        @Override
        public void accept(long timestamp, Long item) {
            events.add("r" + timestamp);
            if (timestamp <= watermark) {
                late.add(timestamp);
            }
        }

        @Override
        public void emit(Long item) {
            throw new AssertionError("records behind withTimestamps have a timestamp");
        }

        @Override
        public void onWatermark(long wm) {
            assertThat(wm).as("the watermark never goes back").isGreaterThan(watermark);
            watermark = wm;
            events.add("w" + wm);
        }

        @Override
        public void onEndOfBatch() {
        }

        @Override
        public void onComplete() {
        }
    }

    /** Processing time that moves only when the test says. */
    static final class Clock implements TimeSource {
        final AtomicLong nanos = new AtomicLong();

        @Override
        public long nanoTime() {
            return nanos.get();
        }

        @Override
        public long currentTimeMillis() {
            return nanos.get() / MS;
        }
    }

    /** One source instance: its cursor, the operator and what is behind it. */
    static final class Instance {
        final SplitCursor cursor = new SplitCursor();
        final Behind behind = new Behind();
        final SplitTimestampOp<Long> op;

        Instance(long disorder, long idleTimeoutMs, Clock clock) {
            this(disorder, idleTimeoutMs, clock, 0);
        }

        /** {@code intervalNanos}: at most one periodic publication per interval (0: every batch). */
        Instance(long disorder, long idleTimeoutMs, Clock clock, long intervalNanos) {
            op = new SplitTimestampOp<>(INFO, t -> t, BadRecordHandler.fail(INFO), disorder, intervalNanos, idleTimeoutMs * MS,
                    new EventClock(), clock, cursor, behind);
        }

        /** One read: split {@code index} gives {@code timestamps} (none: a read that gave nothing). */
        Instance read(int index, long... timestamps) {
            cursor.reading(index);
            for (long t : timestamps) {
                op.accept(Inlet.NO_TIMESTAMP, t);
            }
            op.onEndOfBatch();
            return this;
        }

        byte[] snapshot() {
            WireOut out = new WireOut(64);
            op.snapshotTo(out, 1);
            return out.toBytes();
        }
    }

    private static WireIn in(byte[] state) {
        return new WireIn(ByteBuffer.wrap(state), -1);
    }

    @Test
    void records_in_order_within_their_split_are_never_late_and_the_watermark_is_the_least_over_the_splits() {
        Instance x = new Instance(0, 0, new Clock());
        int a = x.cursor.add("a");
        int b = x.cursor.add("b");
        x.read(a, 100, 101, 102).read(a, 103, 104);
        assertThat(x.behind.watermark).as("b has given nothing yet: it holds").isEqualTo(Long.MIN_VALUE);
        x.read(b, 10, 11, 12);
        assertThat(x.behind.watermark).isEqualTo(11);
        x.read(a, 105).read(b, 13, 50).read(b, 99);
        assertThat(x.behind.watermark).isEqualTo(98);
        x.read(b, 120).read(a, 106);
        assertThat(x.behind.watermark).isEqualTo(105);
        assertThat(x.behind.late).isEmpty();
        assertThat(x.behind.events).containsExactly("r100", "r101", "r102", "r103", "r104", "r10", "r11", "r12", "w11", "r105", "r13",
                "r50", "w49", "r99", "w98", "r120", "w104", "r106", "w105");
    }

    @Test
    void a_record_behind_its_own_split_is_late_only_below_the_least_over_the_splits_and_then_deterministically() {
        // one periodic publication, then none for an hour: only lateness moves the watermark
        Instance x = new Instance(2, 0, new Clock(), 3_600_000 * MS);
        int a = x.cursor.add("a");
        int b = x.cursor.add("b");
        x.read(a, 100).read(b, 50);
        // 90 is behind a's 100 by more than 2, but b holds event time at 50: not late behind
        x.read(a, 90);
        assertThat(x.behind.late).isEmpty();
        x.read(b, 200);
        assertThat(x.behind.watermark).as("not due yet").isEqualTo(47);
        // now the least is a's 100: 96 is late, and the watermark goes to the bound before it, not at the next publication
        x.cursor.reading(a);
        x.op.accept(Inlet.NO_TIMESTAMP, 96L);
        assertThat(x.behind.watermark).isEqualTo(97);
        assertThat(x.behind.late).containsExactly(96L);
        x.op.accept(Inlet.NO_TIMESTAMP, 98L); // within the disorder of a: not late
        assertThat(x.behind.late).containsExactly(96L);
    }

    @Test
    void a_split_with_nothing_holds_until_read_empty_past_its_idle_timeout_and_its_later_records_behind_may_be_late() {
        Clock clock = new Clock();
        Instance x = new Instance(0, 50, clock);
        int a = x.cursor.add("a");
        int b = x.cursor.add("b");
        x.read(a, 10, 20).read(b);
        clock.nanos.addAndGet(30 * MS);
        x.read(a, 30).read(b);
        assertThat(x.behind.watermark).as("b is not idle yet").isEqualTo(Long.MIN_VALUE);
        clock.nanos.addAndGet(30 * MS);
        x.read(a, 40);
        assertThat(x.behind.watermark).as("b has had no records for 60 ms, but was not read since: not idle").isEqualTo(Long.MIN_VALUE);
        x.read(b);
        assertThat(x.behind.watermark).as("b read and found empty past the timeout: a alone holds").isEqualTo(39);
        x.read(b, 5);
        assertThat(x.behind.late).as("b idle: its record behind the watermark is late").containsExactly(5L);
        x.read(b, 41).read(a, 50);
        assertThat(x.behind.watermark).as("b holds again, from its newest").isEqualTo(40);
    }

    @Test
    void a_finished_split_stops_holding_and_a_new_one_holds_from_its_first_read() {
        Instance x = new Instance(0, 0, new Clock());
        int a = x.cursor.add("a");
        int b = x.cursor.add("b");
        x.read(a, 100).read(b, 10);
        assertThat(x.behind.watermark).isEqualTo(9);
        x.cursor.ended(b);
        x.read(b);
        assertThat(x.behind.watermark).as("b finished: a alone holds, even in a batch without records").isEqualTo(99);
        int c = x.cursor.add("c");
        x.read(a, 200);
        assertThat(x.behind.watermark).as("c came and holds").isEqualTo(99);
        x.read(c, 150);
        assertThat(x.behind.watermark).isEqualTo(149);
        assertThat(x.behind.late).isEmpty();
    }

    @Test
    void the_whole_instance_quiet_for_the_idle_timeout_publishes_the_idle_estimate() {
        Clock clock = new Clock();
        Instance x = new Instance(0, 50, clock);
        int a = x.cursor.add("a");
        x.read(a, 100);
        assertThat(x.behind.watermark).isEqualTo(99);
        clock.nanos.addAndGet(80 * MS);
        x.read(a);
        assertThat(x.behind.watermark).as("the read in this batch may have come before the timeout").isEqualTo(99);
        x.read(a);
        assertThat(x.behind.watermark).as("event time taken to move with the wall clock from 100").isEqualTo(179);
    }

    @Test
    void a_restore_gives_each_split_its_progress_back_by_id_so_the_same_input_gives_the_same_late_records() {
        Instance first = new Instance(0, 0, new Clock());
        int a = first.cursor.add("a");
        int b = first.cursor.add("b");
        first.read(a, 100).read(b, 50).read(a, 120);
        byte[] saved = first.snapshot();
        first.read(b, 40).read(b, 60).read(a, 55);

        // restored with the splits in another order: their indexes differ, their ids do not
        Instance again = new Instance(0, 0, new Clock());
        again.op.restoreFrom(in(saved));
        again.behind.watermark = 49; // the stage behind restored its own
        int b2 = again.cursor.add("b");
        int a2 = again.cursor.add("a");
        again.read(b2, 40).read(b2, 60).read(a2, 55);
        assertThat(again.behind.late).isEqualTo(first.behind.late).containsExactly(40L, 55L);
        assertThat(again.behind.watermark).isEqualTo(first.behind.watermark).isEqualTo(59);
        assertThat(again.behind.events).as("nothing below the restored watermark is published again").doesNotContain("w49");
    }

    @Test
    void a_restore_onto_another_layout_takes_each_split_from_the_instance_that_had_it_and_the_lowest_watermark() {
        Instance zero = new Instance(0, 0, new Clock());
        Instance one = new Instance(0, 0, new Clock());
        int za = zero.cursor.add("a");
        int zb = zero.cursor.add("b");
        zero.read(za, 100).read(zb, 80);
        one.read(one.cursor.add("c"), 30);
        Rescale rescale = new Rescale(0, 1, List.of(List.of(in(zero.snapshot())), List.of(in(one.snapshot()))), 1);
        Instance merged = new Instance(0, 0, new Clock());
        merged.op.restoreRescaled(rescale);
        assertThat(merged.op.received()).isEqualTo(3);
        int c = merged.cursor.add("c");
        int a = merged.cursor.add("a");
        int b = merged.cursor.add("b");
        merged.read(c, 31).read(a, 101).read(b, 81);
        assertThat(merged.behind.late).isEmpty();
        assertThat(merged.behind.watermark).isEqualTo(30);
        merged.read(b, 79);
        assertThat(merged.behind.late).as("b judges from 81, where it was: 79 is not behind the least (31)").isEmpty();
        merged.read(c, 200).read(a, 300).read(b, 75);
        assertThat(merged.behind.late).containsExactly(75L);
    }

    @Test
    void a_snapshot_of_the_per_instance_operator_restores_with_every_split_holding_until_it_gives_a_record() {
        WireOut out = new WireOut(32);
        out.putLong(100).putLong(90).putLong(7);
        Instance x = new Instance(0, 0, new Clock());
        x.op.restoreFrom(in(out.toBytes()));
        int a = x.cursor.add("a");
        int b = x.cursor.add("b");
        x.read(a, 95);
        assertThat(x.behind.watermark).isEqualTo(Long.MIN_VALUE);
        x.read(b, 120).read(a, 130);
        assertThat(x.behind.events).as("nothing up to the restored 90 again").containsExactly("r95", "r120", "w94", "r130", "w119");
        assertThat(x.behind.late).isEmpty();
        assertThat(x.op.received()).isEqualTo(10);
    }
}
