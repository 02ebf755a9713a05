package air.channels;

import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.IntConsumer;

/**
 * A transport that hands every call to another. A wrapper (a test's lagging data lane, a peer that
 * drops a goodbye, a fault injector) overrides what it changes and inherits the rest, including
 * whatever {@link Transport} gains later: a wrapper written by hand would answer a new method with
 * its default instead of the wrapped transport's (as {@link #delivered} would have been refused).
 */
public abstract class ForwardingTransport implements Transport {

    /** The transport every call goes to unless a subclass says otherwise. */
    protected final Transport delegate;

    protected ForwardingTransport(Transport delegate) {
        this.delegate = Objects.requireNonNull(delegate, "ForwardingTransport(delegate): delegate is null");
    }

    @Override
    public int self() {
        return delegate.self();
    }

    @Override
    public int peers() {
        return delegate.peers();
    }

    @Override
    public void send(int peer, int channel, ByteBuffer payload) {
        delegate.send(peer, channel, payload);
    }

    @Override
    public void send(int peer, int channel, WireOut payload) {
        delegate.send(peer, channel, payload);
    }

    @Override
    public Frame receive(int channel, Duration timeout) throws InterruptedException {
        return delegate.receive(channel, timeout);
    }

    @Override
    public void discard(int channel) {
        delegate.discard(channel);
    }

    @Override
    public CompletableFuture<Void> delivered(int peer) {
        return delegate.delivered(peer);
    }

    @Override
    public void onLinkFailure(BiConsumer<Integer, Throwable> listener) {
        delegate.onLinkFailure(listener);
    }

    @Override
    public void onDeparture(IntConsumer listener) {
        delegate.onDeparture(listener);
    }

    @Override
    public void markLost(int peer, String why) {
        delegate.markLost(peer, why);
    }

    @Override
    public boolean survivesPeerLoss() {
        return delegate.survivesPeerLoss();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
