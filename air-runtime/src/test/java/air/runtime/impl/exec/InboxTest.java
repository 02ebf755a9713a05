package air.runtime.impl.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.impl.shuffle.Inbox;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The inbox parks instead of spinning, wakes the other side, and unwinds on cancel. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InboxTest {

    private final JobContext job = new JobContext("inbox-test");

    @Test
    void a_consumer_parks_while_empty_and_the_producer_wakes_it() throws Exception {
        Inbox inbox = new Inbox(4, job::checkCancelled);
        List<Object> taken = new ArrayList<>();
        Thread consumer = Thread.ofVirtual().unstarted(() -> {
            for (int i = 0; i < 3; i++) {
                taken.add(inbox.take());
            }
        });
        inbox.bindConsumer(consumer);
        consumer.start();
        awaitParked(consumer);
        inbox.offer("a");
        inbox.offer("b");
        inbox.offer("c");
        consumer.join();
        assertThat(taken).containsExactly("a", "b", "c");
    }

    @Test
    void a_producer_parks_while_full_until_the_consumer_makes_room_and_order_is_kept() throws Exception {
        Inbox inbox = new Inbox(2, job::checkCancelled);
        int items = 1000;
        Thread producer = Thread.ofVirtual().start(() -> {
            for (int i = 0; i < items; i++) {
                inbox.offer(i);
            }
        });
        awaitParked(producer);
        assertThat(inbox.size()).isEqualTo(inbox.capacity());
        List<Object> taken = new ArrayList<>();
        Thread consumer = Thread.ofVirtual().unstarted(() -> {
            for (int i = 0; i < items; i++) {
                taken.add(inbox.take());
            }
        });
        inbox.bindConsumer(consumer);
        consumer.start();
        consumer.join();
        producer.join();
        assertThat(taken).hasSize(items);
        for (int i = 0; i < items; i++) {
            assertThat(taken.get(i)).isEqualTo(i);
        }
    }

    @Test
    void many_producers_one_consumer_lose_nothing() throws Exception {
        Inbox inbox = new Inbox(8, job::checkCancelled);
        int producers = 4;
        int perProducer = 5000;
        long[] sum = {0};
        Thread consumer = Thread.ofVirtual().unstarted(() -> {
            for (int i = 0; i < producers * perProducer; i++) {
                sum[0] += (Integer) inbox.take();
            }
        });
        inbox.bindConsumer(consumer);
        consumer.start();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 1; i <= perProducer; i++) {
                    inbox.offer(i);
                }
            }));
        }
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        consumer.join();
        assertThat(sum[0]).isEqualTo((long) producers * perProducer * (perProducer + 1) / 2);
    }

    @Test
    void cancel_unwinds_a_parked_consumer_and_a_parked_producer() throws Exception {
        Inbox empty = new Inbox(2, job::checkCancelled);
        Inbox full = new Inbox(2, job::checkCancelled);
        full.offer(1);
        full.offer(2);
        List<Throwable> unwound = new ArrayList<>();
        Thread consumer = Thread.ofVirtual().unstarted(() -> catching(unwound, empty::take));
        empty.bindConsumer(consumer);
        Thread producer = Thread.ofVirtual().unstarted(() -> catching(unwound, () -> full.offer(3)));
        job.register(consumer);
        job.register(producer);
        consumer.start();
        producer.start();
        awaitParked(consumer);
        awaitParked(producer);
        job.cancel();
        consumer.join();
        producer.join();
        assertThat(unwound).hasSize(2).allSatisfy(t -> assertThat(t).isInstanceOf(JobContext.CancelledSignal.class));
        assertThatThrownBy(job::checkCancelled).isInstanceOf(JobContext.CancelledSignal.class);
    }

    private static void catching(List<Throwable> sink, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            synchronized (sink) {
                sink.add(e);
            }
        }
    }

    /** Waits, without sleeping, until the thread is parked (WAITING) inside the inbox. */
    private static void awaitParked(Thread t) {
        while (t.getState() != Thread.State.WAITING) {
            LockSupport.parkNanos(100_000);
            Thread.onSpinWait();
        }
    }
}
