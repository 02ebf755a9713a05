package air.channels.impl;

import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.ToLongFunction;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;

/**
 * A bounded many-producers-to-one-consumer queue whose producers park while it is full and whose
 * consumer parks until an item arrives or its timeout passes. Safe for virtual and platform
 * threads alike; {@link #wakeAll} makes every parked thread re-check its closed condition.
 *
 * <p>Full means {@code capacity} items or, with a byte budget, items whose sizes add up past the
 * budget: frames run from a few bytes to the codec's largest payload (64 MiB), so a bound in items
 * alone is a bound of gigabytes. An item larger than the whole budget still goes in when the queue
 * is empty, so nothing is ever refused for its size; the queue then holds at most
 * {@code max(budget, that item)} bytes.
 */
public final class ParkingQueue<T> {

    private final MpscAtomicArrayQueue<T> queue;
    private final ConcurrentHashMap<Thread, Boolean> blockedProducers = new ConcurrentHashMap<>();
    private volatile Thread consumer;
    private final long byteBudget;
    /** Whether it has a byte budget: without one, no item's size is asked for. */
    private final boolean budgeted;
    private final ToLongFunction<? super T> sizeOf;
    /** The bytes of the items queued, reserved by a producer before its item goes in and given back by the consumer. */
    private final AtomicLong bytes = new AtomicLong();

    /** A queue bounded in items only. */
    public ParkingQueue(int capacity) {
        this(capacity, Long.MAX_VALUE, item -> 0);
    }

    /** A queue of at most {@code capacity} items and {@code byteBudget} bytes, each item's size told by {@code sizeOf}. */
    public ParkingQueue(int capacity, long byteBudget, ToLongFunction<? super T> sizeOf) {
        if (byteBudget < 1) {
            throw new IllegalArgumentException("byte budget must be positive, got " + byteBudget);
        }
        this.queue = new MpscAtomicArrayQueue<>(capacity);
        this.byteBudget = byteBudget;
        this.budgeted = byteBudget != Long.MAX_VALUE;
        this.sizeOf = sizeOf;
    }

    /** Adds {@code item}, parking while full; throws {@code IllegalStateException(closedMessage)} once {@code closed}. */
    public void offer(T item, BooleanSupplier closed, String closedMessage) {
        long size = budgeted ? sizeOf.applyAsLong(item) : 0;
        if (size > 0) {
            reserve(size, closed, closedMessage);
        }
        try {
            offerItem(item, closed, closedMessage);
        } catch (RuntimeException e) {
            bytes.addAndGet(-size);
            throw e;
        }
    }

    /** Takes {@code size} bytes of the budget, parking until they fit (or the queue holds nothing, for an item past the budget). */
    private void reserve(long size, BooleanSupplier closed, String closedMessage) {
        while (true) {
            long held = bytes.get();
            if (held == 0 || held + size <= byteBudget) {
                if (bytes.compareAndSet(held, held + size)) {
                    return;
                }
                continue;
            }
            Thread me = Thread.currentThread();
            blockedProducers.put(me, Boolean.TRUE);
            try {
                held = bytes.get();
                if (held == 0 || held + size <= byteBudget) {
                    continue; // the consumer took some meanwhile
                }
                if (closed.getAsBoolean()) {
                    throw new IllegalStateException(closedMessage);
                }
                LockSupport.parkNanos(this, 10_000_000L);
            } finally {
                blockedProducers.remove(me);
            }
        }
    }

    private void offerItem(T item, BooleanSupplier closed, String closedMessage) {
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
        taken(item);
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

    /** The bytes of the items queued (0 for a queue without a byte budget). */
    public long bytes() {
        return bytes.get();
    }

    private void taken(T item) {
        long size = budgeted ? sizeOf.applyAsLong(item) : 0;
        if (size > 0) {
            bytes.addAndGet(-size);
        }
    }

    /**
     * Drops every item queued (consumer side only: no {@link #poll} may run meanwhile) and wakes the
     * producers parked for room, which then retry; returns how many items it dropped.
     */
    public int clear() {
        int dropped = 0;
        for (T item = queue.poll(); item != null; item = queue.poll()) {
            taken(item);
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
