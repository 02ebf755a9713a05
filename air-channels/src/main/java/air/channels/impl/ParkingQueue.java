package air.channels.impl;

import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;

/**
 * A bounded many-producers-to-one-consumer queue whose producers park while it is full and whose
 * consumer parks until an item arrives or its timeout passes. Safe for virtual and platform
 * threads alike; {@link #wakeAll} makes every parked thread re-check its closed condition.
 */
public final class ParkingQueue<T> {

    private final MpscAtomicArrayQueue<T> queue;
    private final ConcurrentHashMap<Thread, Boolean> blockedProducers = new ConcurrentHashMap<>();
    private volatile Thread consumer;

    public ParkingQueue(int capacity) {
        queue = new MpscAtomicArrayQueue<>(capacity);
    }

    /** Adds {@code item}, parking while full; throws {@code IllegalStateException(closedMessage)} once {@code closed}. */
    public void offer(T item, BooleanSupplier closed, String closedMessage) {
        while (!queue.offer(item)) {
            Thread me = Thread.currentThread();
            blockedProducers.put(me, Boolean.TRUE);
            try {
                if (queue.offer(item)) {
                    break;
                }
                if (closed.getAsBoolean()) {
                    throw new IllegalStateException(closedMessage);
                }
                LockSupport.parkNanos(this, 10_000_000L);
            } finally {
                blockedProducers.remove(me);
            }
        }
        VarHandle.fullFence(); // the consumer may have just parked: it must see the item or be woken
        Thread c = consumer;
        if (c != null) {
            LockSupport.unpark(c);
        }
    }

    /** The next item, or null when none came within {@code timeoutNanos} or {@code closed} turned true. */
    public T poll(long timeoutNanos, BooleanSupplier closed) throws InterruptedException {
        T item = queue.poll();
        long deadline = System.nanoTime() + timeoutNanos;
        while (item == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || closed.getAsBoolean()) {
                return null;
            }
            consumer = Thread.currentThread();
            VarHandle.fullFence();
            item = queue.poll();
            if (item == null) {
                LockSupport.parkNanos(this, left);
                if (Thread.interrupted()) {
                    consumer = null;
                    throw new InterruptedException();
                }
                item = queue.poll();
            }
            consumer = null;
        }
        VarHandle.fullFence();
        if (!blockedProducers.isEmpty()) {
            blockedProducers.keySet().forEach(LockSupport::unpark);
        }
        return item;
    }

    /** The next item without taking it, or null (consumer side only). */
    public T peek() {
        return queue.peek();
    }

    public int size() {
        return queue.size();
    }

    /**
     * Drops every item queued (consumer side only: no {@link #poll} may run meanwhile) and wakes the
     * producers parked for room, which then retry; returns how many items it dropped.
     */
    public int clear() {
        int dropped = 0;
        while (queue.poll() != null) {
            dropped++;
        }
        VarHandle.fullFence();
        blockedProducers.keySet().forEach(LockSupport::unpark);
        return dropped;
    }

    public void wakeAll() {
        Thread c = consumer;
        if (c != null) {
            LockSupport.unpark(c);
        }
        blockedProducers.keySet().forEach(LockSupport::unpark);
    }
}
