package air.runtime.impl.inbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.JobConfig;
import air.runtime.api.Codec;
import air.runtime.impl.exec.JobContext;
import air.runtime.impl.ops.TestFrames;
import air.runtime.impl.progress.Completion;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.Inbox;
import air.runtime.impl.shuffle.RecordBatch;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.operator.Operator;
import air.runtime.plan.Progress;
import air.wire.WireIn;
import air.wire.WireOut;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Barrier alignment within a memory bound: what a producer past the barrier sends while another
 * producer's barrier is late stays under the bound in memory, the rest goes to a spill file, and
 * the operator sees exactly what it would see without a bound, in the same order.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BoundedAlignmentTest {

    private static final ShuffleItemCodec RECORDS = ShuffleItemCodec.forRecords(TestFrames.INFO, null);
    private static final ShuffleItemCodec FRAMES = new ShuffleItemCodec(TestFrames.INFO, null);

    @TempDir
    Path spillDir;

    /** What the operator sees, per event; items by their producer and encoding, so that a spilled item must come back bit for bit. */
    static final class Recorder implements Operator {
        final List<String> events = new ArrayList<>();
        final IntFunction<ShuffleItemCodec> codecs;
        final long[] itemsOf;

        Recorder(int producers, IntFunction<ShuffleItemCodec> codecs) {
            this.codecs = codecs;
            this.itemsOf = new long[producers];
        }

        @Override
        public void onItem(int input, Object item) {
            ShuffleItem s = (ShuffleItem) item;
            itemsOf[s.producer()]++;
            events.add("item " + s.producer() + " " + encoding(s, codecs.apply(s.producer())));
        }

        @Override
        public void onEpochComplete(long epochStart) {
            events.add("epoch " + epochStart);
        }

        @Override
        public void onProgress(long completeBelow) {
            events.add("progress " + completeBelow);
        }

        @Override
        public void onEndOfInput() {
            events.add("end");
        }

        @Override
        public void snapshotTo(WireOut out, long checkpointId) {
        }

        @Override
        public void restoreFrom(WireIn in) {
        }
    }

    private static String encoding(ShuffleItem item, ShuffleItemCodec codec) {
        ByteBuffer b = SpillFile.encode(item, codec);
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private static InboundEdge edge(Recorder op, int producers, Alignment alignment) {
        return new InboundEdge("count@Test", op, new TestFrames.RecordingInlet(), new int[] {producers},
                Completion.of(Progress.WATERMARK, "count@Test", 10, new int[] {producers}), alignment, new RepeatFilter(producers, 10),
                id -> op.events.add("captured " + id));
    }

    private long spillFiles() {
        try (var files = Files.list(spillDir)) {
            return files.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void a_slow_barrier_keeps_held_bytes_under_the_bound_and_the_held_items_come_out_complete_and_in_order() {
        long bound = 16 * 1024;
        int batches = 1000;
        int records = 50;
        BarrierAligner aligner = new BarrierAligner(3, 0, bound, p -> RECORDS, spillDir);
        Recorder op = new Recorder(3, p -> RECORDS);
        InboundEdge edge = edge(op, 3, aligner);
        List<String> sentBy0 = new ArrayList<>();
        List<String> sentBy1 = new ArrayList<>();
        edge.accept(new ShuffleItem.Barrier(0, 1));
        edge.accept(new ShuffleItem.Barrier(1, 1));
        long most = 0;
        for (int i = 0; i < batches; i++) {
            for (int p = 0; p < 3; p++) { // producer 2's barrier is the slow one: its items go through meanwhile
                RecordBatch b = TestFrames.batch(p, (long) i * records, records);
                if (p < 2) {
                    (p == 0 ? sentBy0 : sentBy1).add("item " + p + " " + encoding(b, RECORDS));
                }
                edge.accept(b);
                assertThat(edge.heldBytes()).as("held in memory after batch %d of producer %d", i, p).isLessThanOrEqualTo(bound);
                most = Math.max(most, edge.heldBytes());
            }
        }
        assertThat(edge.heldItems()).isEqualTo(2 * batches);
        assertThat(most).as("the bound is used, not avoided").isGreaterThan(bound / 2);
        assertThat(aligner.spilledItems()).as("what did not fit went to disk").isPositive();
        assertThat(aligner.openSpillFiles()).isEqualTo(1);
        assertThat(op.itemsOf).containsExactly(0, 0, batches);
        assertThat(op.events).doesNotContain("captured 1");

        edge.accept(new ShuffleItem.Barrier(2, 1));

        int captured = op.events.indexOf("captured 1");
        assertThat(captured).as("the checkpoint is captured before any item past the barrier runs").isEqualTo(batches);
        List<String> after = op.events.subList(captured + 1, op.events.size());
        assertThat(after.stream().filter(e -> e.startsWith("item 0 ")).toList()).isEqualTo(sentBy0);
        assertThat(after.stream().filter(e -> e.startsWith("item 1 ")).toList()).isEqualTo(sentBy1);
        assertThat(op.itemsOf).containsExactly(batches, batches, batches);
        assertThat(edge.heldItems()).isZero();
        assertThat(edge.heldBytes()).isZero();
        assertThat(aligner.openSpillFiles()).as("the spill file is deleted once read").isZero();
        assertThat(spillFiles()).isZero();
    }

    /**
     * Several checkpoints, a producer past the next barrier while the last one is still held,
     * watermarks and ends, interleaved at random (seeded): whatever the bound, the operator sees
     * exactly what it sees without one.
     */
    @Test
    void whatever_the_bound_the_operator_sees_exactly_what_it_sees_without_one() {
        for (long seed = 1; seed <= 20; seed++) {
            List<ShuffleItem> items = randomRun(new SplittableRandom(seed), 4, 6, 400);
            List<String> unbounded = run(items, 4, new BarrierAligner(4, 0));
            assertThat(unbounded).contains("captured 6", "end");
            for (long bound : new long[] {0, 300, 5_000}) {
                BarrierAligner aligner = new BarrierAligner(4, 0, bound, p -> RECORDS, spillDir);
                assertThat(run(items, 4, aligner)).as("seed %d, bound %d", seed, bound).isEqualTo(unbounded);
                assertThat(aligner.heldBytes()).isZero();
                assertThat(aligner.openSpillFiles()).isZero();
            }
        }
    }

    private static List<String> run(List<ShuffleItem> items, int producers, BarrierAligner aligner) {
        Recorder op = new Recorder(producers, p -> RECORDS);
        InboundEdge edge = edge(op, producers, aligner);
        for (ShuffleItem item : items) {
            edge.accept(item);
        }
        edge.close();
        return op.events;
    }

    /** Each producer: record batches, rising watermarks and barriers 1 .. checkpoints in order, then its end; producers interleaved. */
    private static List<ShuffleItem> randomRun(SplittableRandom random, int producers, int checkpoints, int itemsEach) {
        List<List<ShuffleItem>> streams = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            List<ShuffleItem> s = new ArrayList<>();
            long next = 0;
            long barrier = 0;
            for (int i = 0; i < itemsEach; i++) {
                int kind = random.nextInt(20);
                if (kind == 0 && barrier < checkpoints) {
                    s.add(new ShuffleItem.Barrier(p, ++barrier));
                } else if (kind < 3) {
                    s.add(new ShuffleItem.Watermark(p, next));
                } else {
                    int n = 1 + random.nextInt(8);
                    s.add(TestFrames.batch(p, next, n));
                    next += n;
                }
            }
            while (barrier < checkpoints) {
                s.add(new ShuffleItem.Barrier(p, ++barrier));
            }
            s.add(new ShuffleItem.EndOfStream(p));
            streams.add(s);
        }
        List<ShuffleItem> all = new ArrayList<>();
        int[] at = new int[producers];
        int left = producers;
        while (left > 0) {
            int p = random.nextInt(producers);
            int burst = 1 + random.nextInt(30); // bursts, so that one producer runs well ahead of another's barrier
            for (int k = 0; k < burst && at[p] < streams.get(p).size(); k++) {
                all.add(streams.get(p).get(at[p]++));
                if (at[p] == streams.get(p).size()) {
                    left--;
                }
            }
        }
        return all;
    }

    @Test
    void each_producer_spills_in_its_own_edge_encoding_and_comes_back_as_sent() {
        IntFunction<ShuffleItemCodec> codecs = p -> p == 0 ? FRAMES : RECORDS;
        BarrierAligner aligner = new BarrierAligner(3, 0, 0, codecs, spillDir);
        aligner.onBarrier(new ShuffleItem.Barrier(0, 1));
        aligner.onBarrier(new ShuffleItem.Barrier(1, 1));
        List<ShuffleItem> sent = List.of(TestFrames.partial(0, 10, 1, 2, 2), TestFrames.batch(1, 0, 3), new ShuffleItem.Watermark(0, 19),
                TestFrames.partial(0, 20, 5), new ShuffleItem.Barrier(1, 2), TestFrames.batch(1, 3, 2), new ShuffleItem.EndOfStream(0));
        List<String> expected = new ArrayList<>();
        for (ShuffleItem item : sent) {
            expected.add(encoding(item, codecs.apply(item.producer())));
            assertThat(aligner.holds(item)).isTrue();
            assertThat(aligner.heldBytes()).isZero();
        }
        assertThat(aligner.holds(TestFrames.batch(2, 0, 1))).as("producer 2's barrier is not in: its items run").isFalse();
        assertThat(aligner.spilledItems()).isEqualTo(sent.size());
        aligner.onBarrier(new ShuffleItem.Barrier(2, 1));
        assertThat(aligner.aligned(new EndOfStreamCounter(3))).isEqualTo(1);
        List<String> released = new ArrayList<>();
        List<ShuffleItem> back = new ArrayList<>();
        try (Alignment.Released held = aligner.releaseHeld()) {
            for (ShuffleItem item : held) {
                back.add(item);
                released.add(encoding(item, codecs.apply(item.producer())));
            }
        }
        assertThat(released).isEqualTo(expected);
        assertThat(back.get(0)).isInstanceOf(FrameAccumulators.class);
        assertThat(((FrameAccumulators) back.get(0)).size()).isEqualTo(2);
        assertThat(aligner.openSpillFiles()).isZero();
    }

    @Test
    void an_item_its_codec_cannot_encode_stays_in_memory_past_the_bound_in_its_turn() {
        ShuffleItemCodec failing = ShuffleItemCodec.forRecords(TestFrames.INFO, new Codec<Object>() {
            @Override
            public void write(Object value, WireOut out) {
                throw new IllegalArgumentException("not encodable");
            }

            @Override
            public Object read(WireIn in) {
                throw new AssertionError();
            }
        });
        BarrierAligner aligner = new BarrierAligner(2, 0, 0, p -> p == 0 ? failing : RECORDS, spillDir);
        aligner.onBarrier(new ShuffleItem.Barrier(0, 1));
        RecordBatch kept = TestFrames.batch(0, 0, 2);
        aligner.holds(new ShuffleItem.Watermark(0, 1)); // spilled: a watermark needs no record codec
        aligner.holds(kept);
        aligner.holds(new ShuffleItem.Watermark(0, 2));
        assertThat(aligner.spilledItems()).isEqualTo(2);
        assertThat(aligner.heldBytes()).isEqualTo(BarrierAligner.estimatedBytes(kept));
        aligner.onBarrier(new ShuffleItem.Barrier(1, 1));
        List<ShuffleItem> back = new ArrayList<>();
        try (Alignment.Released held = aligner.releaseHeld()) {
            held.forEach(back::add);
        }
        assertThat(back).hasSize(3);
        assertThat(back.get(0)).isEqualTo(new ShuffleItem.Watermark(0, 1));
        assertThat(back.get(1)).isSameAs(kept);
        assertThat(back.get(2)).isEqualTo(new ShuffleItem.Watermark(0, 2));
        assertThat(aligner.heldBytes()).isZero();
    }

    @Test
    void a_spill_past_its_cap_fails_naming_the_producers_still_waited_for_and_leaves_no_file() {
        BarrierAligner aligner = new BarrierAligner(3, 0, 0, p -> RECORDS, spillDir, 4_096);
        Recorder op = new Recorder(3, p -> RECORDS);
        InboundEdge edge = edge(op, 3, aligner);
        edge.accept(new ShuffleItem.Barrier(0, 1)); // producers 1 and 2 stall: producer 0's items pile up
        assertThatThrownBy(() -> {
            for (int i = 0; i < 1_000; i++) {
                edge.accept(TestFrames.batch(0, i * 10L, 10));
            }
        }).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("barrier alignment of checkpoint 1 has spilled")
                .hasMessageContaining("its cap (JobConfig.alignmentSpill): producer(s) [1, 2] have not sent that barrier");
        assertThat(aligner.spilledItems() * 10).as("bounded: it stopped near the cap, not after all 10 000 records").isLessThan(2_000);
        edge.close();
        assertThat(spillFiles()).isZero();
    }

    @Test
    void closing_mid_alignment_drops_what_is_held_and_deletes_the_spill_file() {
        BarrierAligner aligner = new BarrierAligner(2, 0, 1000, p -> RECORDS, spillDir);
        Recorder op = new Recorder(2, p -> RECORDS);
        InboundEdge edge = edge(op, 2, aligner);
        edge.accept(new ShuffleItem.Barrier(0, 1));
        for (int i = 0; i < 50; i++) {
            edge.accept(TestFrames.batch(0, i * 10L, 10));
        }
        assertThat(aligner.openSpillFiles()).isEqualTo(1);
        assertThat(edge.heldBytes()).isPositive();
        edge.close(); // the tasklet ended: failed or cancelled mid-alignment
        assertThat(aligner.openSpillFiles()).isZero();
        assertThat(spillFiles()).isZero();
        assertThat(edge.heldBytes()).isZero();
        assertThat(edge.heldItems()).isZero();
    }

    @Test
    void a_release_cut_short_by_the_end_of_input_deletes_the_spill_file() {
        BarrierAligner aligner = new BarrierAligner(2, 0, 0, p -> RECORDS, spillDir);
        Recorder op = new Recorder(2, p -> RECORDS);
        InboundEdge edge = edge(op, 2, aligner);
        edge.accept(new ShuffleItem.Barrier(0, 1));
        edge.accept(TestFrames.batch(0, 0, 3));
        edge.accept(new ShuffleItem.EndOfStream(0));
        edge.accept(new ShuffleItem.EndOfStream(0)); // a repeated end (a replayed producer): left over once the input ended
        assertThat(aligner.spilledItems()).isEqualTo(3);
        assertThat(edge.accept(new ShuffleItem.EndOfStream(1))).isTrue();
        assertThat(op.events).endsWith("end");
        assertThat(op.itemsOf).containsExactly(1, 0);
        assertThat(aligner.openSpillFiles()).as("the release cut short closed its spill file").isZero();
        assertThat(edge.heldBytes()).isZero();
    }

    /**
     * The intake never stops: with a real bounded inbox, a fast producer past the barrier sends far
     * more than the inbox and the alignment's memory hold, and the slow producer sends its barrier
     * only once every one of those was offered. An aligner that stopped taking at its bound would
     * leave the fast producer parked on the full inbox and the slow one waiting for it forever.
     */
    @Test
    void a_fast_producer_past_the_barrier_never_blocks_the_slow_barrier_behind_it() throws InterruptedException {
        long bound = 2048;
        int batches = 2000;
        JobContext job = new JobContext("test");
        Inbox inbox = new Inbox(4, job::checkCancelled);
        inbox.bindConsumer(Thread.currentThread());
        BarrierAligner aligner = new BarrierAligner(2, 0, bound, p -> RECORDS, spillDir);
        Recorder op = new Recorder(2, p -> RECORDS);
        InboundEdge edge = edge(op, 2, aligner);
        CountDownLatch fastSent = new CountDownLatch(1);
        List<String> sentByFast = new ArrayList<>();
        Thread fast = Thread.ofPlatform().daemon().name("fast producer").start(() -> {
            inbox.offer(new ShuffleItem.Barrier(0, 1));
            for (int i = 0; i < batches; i++) {
                RecordBatch b = TestFrames.batch(0, i * 20L, 20);
                sentByFast.add("item 0 " + encoding(b, RECORDS));
                inbox.offer(b);
            }
            fastSent.countDown();
            inbox.offer(new ShuffleItem.EndOfStream(0));
        });
        Thread slow = Thread.ofPlatform().daemon().name("slow producer").start(() -> {
            try {
                fastSent.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            inbox.offer(TestFrames.batch(1, 0, 5));
            inbox.offer(new ShuffleItem.Barrier(1, 1));
            inbox.offer(new ShuffleItem.EndOfStream(1));
        });
        boolean done = false;
        long mostHeld = 0;
        try {
            while (!done) {
                done = edge.accept((ShuffleItem) inbox.take());
                inbox.doneWithItem(edge.heldItems());
                assertThat(edge.heldBytes()).isLessThanOrEqualTo(bound);
                mostHeld = Math.max(mostHeld, edge.heldItems());
            }
        } finally {
            inbox.close(); // a failed assertion must not leave a producer parked on the full inbox
        }
        fast.join();
        slow.join();
        edge.close();
        assertThat(mostHeld).as("the fast producer's items waited for the slow barrier").isGreaterThanOrEqualTo(batches);
        assertThat(aligner.spilledItems()).isPositive();
        int captured = op.events.indexOf("captured 1");
        assertThat(op.events.subList(0, captured)).noneMatch(e -> e.startsWith("item 0 "));
        assertThat(op.events.subList(captured, op.events.size()).stream().filter(e -> e.startsWith("item 0 ")).toList())
                .isEqualTo(sentByFast);
        assertThat(op.events).endsWith("end");
        assertThat(aligner.openSpillFiles()).isZero();
    }

    @Test
    void the_bound_is_a_job_setting_validated_with_the_call_named() {
        assertThat(JobConfig.defaults().alignmentBufferBytes()).isEqualTo(64L << 20);
        assertThat(JobConfig.defaults().alignmentBufferBytes(0).alignmentBufferBytes()).isZero();
        assertThatThrownBy(() -> JobConfig.defaults().alignmentBufferBytes(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("JobConfig.alignmentBufferBytes(bytes): bytes must be >= 0, was -1");
    }
}
