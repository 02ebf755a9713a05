package air.channels.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The byte budget of a parking queue: held exactly under several producers, an item past it admitted alone, nothing lost. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ParkingQueueTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void several_producers_never_take_it_past_its_byte_budget_and_every_item_arrives_once() throws Exception {
        int producers = 4;
        int perProducer = 2_000;
        long budget = 1_000;
        ParkingQueue<int[]> q = new ParkingQueue<>(256, budget, item -> item[1]);
        AtomicBoolean closed = new AtomicBoolean();
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int producer = p;
            sent.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < perProducer; i++) {
                    q.offer(new int[] {producer * perProducer + i, 1 + (i * 37 + producer) % 300}, closed::get, "closed");
                }
            }, r -> Thread.ofPlatform().daemon().start(r)));
        }
        boolean[] seen = new boolean[producers * perProducer];
        int[] last = new int[producers];
        Arrays.fill(last, -1);
        AtomicLong most = new AtomicLong();
        long deadline = System.nanoTime() + 10 * SECOND;
        while (q.bytes() <= budget - 300) { // no consumer yet: the producers fill it to within an item of its budget
            assertThat(System.nanoTime()).as("the producers fill the queue").isLessThan(deadline);
            Thread.onSpinWait();
        }
        for (int n = 0; n < seen.length; n++) {
            most.accumulateAndGet(q.bytes(), Math::max);
            int[] item = q.poll(10 * SECOND, closed::get);
            assertThat(item).as("item " + n).isNotNull();
            assertThat(seen[item[0]]).as("item " + item[0] + " twice").isFalse();
            seen[item[0]] = true;
            int producer = item[0] / perProducer;
            assertThat(item[0]).as("in each producer's order").isGreaterThan(last[producer]);
            last[producer] = item[0];
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertThat(most.get()).as("the most bytes queued").isLessThanOrEqualTo(budget).isGreaterThan(budget - 300);
        assertThat(q.bytes()).isZero();
    }

    @Test
    void an_item_past_the_whole_budget_goes_in_alone_and_the_next_waits_for_it() throws Exception {
        ParkingQueue<Long> q = new ParkingQueue<>(16, 100, item -> item);
        AtomicBoolean closed = new AtomicBoolean();
        q.offer(500L, closed::get, "closed");
        assertThat(q.bytes()).isEqualTo(500);
        CompletableFuture<Void> next = CompletableFuture.runAsync(() -> q.offer(10L, closed::get, "closed"),
                r -> Thread.ofPlatform().daemon().start(r));
        assertThat(q.size()).as("the second item waits while the first is queued").isEqualTo(1);
        assertThat(next).isNotDone();
        assertThat(q.poll(SECOND, closed::get)).isEqualTo(500L);
        next.get(10, TimeUnit.SECONDS);
        assertThat(q.poll(SECOND, closed::get)).isEqualTo(10L);
        assertThat(q.bytes()).isZero();
    }

    @Test
    void a_producer_waiting_for_bytes_gives_up_when_closed_and_clear_gives_the_bytes_back() throws Exception {
        ParkingQueue<Long> q = new ParkingQueue<>(16, 100, item -> item);
        AtomicBoolean closed = new AtomicBoolean();
        q.offer(60L, closed::get, "closed");
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> q.offer(60L, closed::get, "closed"),
                r -> Thread.ofPlatform().daemon().start(r));
        closed.set(true);
        q.wakeAll();
        assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
        assertThat(q.bytes()).as("the refused item holds nothing").isEqualTo(60);
        assertThat(q.clear()).isEqualTo(1);
        assertThat(q.bytes()).isZero();
    }
}
