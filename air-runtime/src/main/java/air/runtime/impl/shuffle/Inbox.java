package air.runtime.impl.shuffle;

import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;

/**
 * A bounded many-producers-to-one-consumer queue of batches between tasklets. The consumer parks
 * when it is empty and the next producer unparks it; a producer that finds it full parks until the
 * consumer makes room (backpressure). Nothing spins. Wake-ups happen per batch, and only when the
 * other side is actually parked.
 */
public final class Inbox {

    /** {@link #takeSlow}'s deadline for a wait without one. */
    private static final long NO_DEADLINE = Long.MAX_VALUE;

    private final MpscAtomicArrayQueue<Object> queue;
    /** Run while waiting for room or for an item: throws once the job is cancelled or failed. */
    private final Runnable cancellationCheck;
    private final ConcurrentLinkedQueue<Thread> blockedProducers = new ConcurrentLinkedQueue<>();
    private final AtomicInteger blockedCount = new AtomicInteger();
    private volatile Thread consumer;
    private volatile boolean consumerParked;
    private volatile boolean closed;
    /** Items offered (counted before they become visible) and items the consumer is done with: equal when nothing is in flight. */
    private final AtomicLong offered = new AtomicLong();
    private volatile long done;
    private volatile int heldBack;

    /** An inbox of {@code capacity} items whose waits run {@code cancellationCheck} (the job's: it throws once cancelled). */
    public Inbox(int capacity, Runnable cancellationCheck) {
        this.queue = new MpscAtomicArrayQueue<>(capacity);
        this.cancellationCheck = cancellationCheck;
    }

    /** Binds the consuming thread; must happen before any producer can find the consumer parked. */
    public void bindConsumer(Thread thread) {
        consumer = thread;
    }

    /** Adds an item, parking while the inbox is full. Unwinds if the job is cancelled. */
    public void offer(Object item) {
        if (closed) {
            return;
        }
        offered.incrementAndGet();
        if (!queue.offer(item)) {
            offerSlow(item);
        }
        // the queue publishes with a release store, which a later load may pass: without a full
        // fence the producer could miss that the consumer just parked, and the wake-up is lost
        VarHandle.fullFence();
        if (consumerParked) {
            LockSupport.unpark(consumer);
        }
    }

    private void offerSlow(Object item) {
        Thread self = Thread.currentThread();
        blockedCount.incrementAndGet();
        blockedProducers.add(self);
        try {
            while (!queue.offer(item)) {
                cancellationCheck.run();
                if (closed) {
                    offered.decrementAndGet(); // never enqueued: not in flight
                    return;
                }
                if (consumerParked) {
                    LockSupport.unpark(consumer);
                }
                LockSupport.park(this);
            }
        } finally {
            blockedProducers.remove(self);
            blockedCount.decrementAndGet();
        }
    }

    /** Takes the next item, parking while empty. Unwinds if the job is cancelled. */
    public Object take() {
        Object item = queue.poll();
        if (item == null) {
            item = takeSlow(NO_DEADLINE);
        }
        roomFreed();
        return item;
    }

    /** Takes the next item, parking at most {@code maxWaitNanos} while empty; null when none came. Unwinds if the job is cancelled. */
    public Object take(long maxWaitNanos) {
        Object item = queue.poll();
        if (item == null) {
            item = takeSlow(System.nanoTime() + maxWaitNanos);
            if (item == null) {
                return null;
            }
        }
        roomFreed();
        return item;
    }

    /** A slot was freed: wakes the producers parked on a full inbox, if any. */
    private void roomFreed() {
        VarHandle.fullFence(); // as in offer: the freed slot must be visible before reading blockedCount
        if (blockedCount.get() != 0) {
            for (Thread t : blockedProducers) {
                LockSupport.unpark(t);
            }
        }
    }

    /** Parks until an item comes or the machine's clock reaches {@code deadline} ({@link #NO_DEADLINE}: never): the item, or null. */
    private Object takeSlow(long deadline) {
        while (true) {
            cancellationCheck.run();
            consumerParked = true;
            Object item = queue.poll();
            if (item != null) {
                consumerParked = false;
                return item;
            }
            if (deadline == NO_DEADLINE) {
                LockSupport.park(this);
            } else {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    consumerParked = false;
                    return null;
                }
                LockSupport.parkNanos(this, left);
            }
            consumerParked = false;
            item = queue.poll();
            if (item != null) {
                return item;
            }
        }
    }

    /**
     * The consumer is done: later items are dropped and blocked producers released. Replication
     * needs it: a producer that took over a dead peer's share may repeat what a finished instance
     * already has.
     */
    public void close() {
        closed = true;
        for (Thread t : blockedProducers) {
            LockSupport.unpark(t);
        }
    }

    public int size() {
        return queue.size();
    }

    /**
     * The consumer finished with one more item it took, including all it handed on for it, and
     * holds {@code held} taken items back unhandled (barrier alignment). Consumer thread only.
     */
    public void doneWithItem(int held) {
        heldBack = held;
        done = done + 1; // a single writer: a volatile store, no read-modify-write race
    }

    /** Items offered so far (for a stable reading of {@link #drained} across several inboxes). */
    public long offeredCount() {
        return offered.get();
    }

    /** Every item offered so far has been taken and fully handled by the consumer (none held back). */
    public boolean drained() {
        return done == offered.get() && heldBack == 0;
    }

    public int capacity() {
        return queue.capacity();
    }
}
