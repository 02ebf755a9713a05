package air.channels.impl;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.IntConsumer;

/**
 * Which links of a transport are broken, and who hears of it: each link breaks once, with its
 * first cause; listeners are told of breaks the transport found itself, not of peers another
 * component declared lost. A peer that closed its transport and said so has <em>left</em>: its
 * link is closed as a broken one is, but only the departure listeners hear of it, never those of
 * failures. Reads are racy on purpose: a late read only delays the error.
 */
public final class LinkFailures {

    private final Throwable[] cause;
    /** Peers that said goodbye (their links close as departures, never as failures); guarded by {@code cause}. */
    private final boolean[] leaving;
    private final CopyOnWriteArrayList<BiConsumer<Integer, Throwable>> listeners = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<IntConsumer> departures = new CopyOnWriteArrayList<>();

    public LinkFailures(int peers) {
        cause = new Throwable[peers];
        leaving = new boolean[peers];
    }

    public void listen(BiConsumer<Integer, Throwable> listener) {
        listeners.add(listener);
    }

    public void listenDepartures(IntConsumer listener) {
        departures.add(listener);
    }

    /**
     * {@code peer} closed its transport and said goodbye: the departure listeners are told first,
     * then its link is closed (sends to it fail saying it left), so whoever listens hears of the
     * departure before a send to it can fail. Once per peer; false, telling nobody, when the link
     * was already broken or left.
     */
    public boolean depart(int peer) {
        synchronized (cause) {
            if (cause[peer] != null || leaving[peer]) {
                return false;
            }
            leaving[peer] = true; // from now on the link breaks only as a departure
        }
        for (IntConsumer l : departures) {
            l.accept(peer);
        }
        synchronized (cause) {
            cause[peer] = new IllegalStateException("peer " + peer + " left (it closed its transport)");
        }
        return true;
    }

    /** Records the link to {@code peer} as broken; false when it already was, or the peer is leaving. */
    public boolean mark(int peer, Throwable why) {
        synchronized (cause) {
            if (cause[peer] != null || leaving[peer]) {
                return false;
            }
            cause[peer] = why;
            return true;
        }
    }

    /** The transport found the link broken: records it and tells the listeners (once); false when it already was. */
    public boolean report(int peer, Throwable why) {
        if (!mark(peer, why)) {
            return false;
        }
        tell(peer, why);
        return true;
    }

    /** Tells the listeners of a break already {@link #mark}ed. */
    public void tell(int peer, Throwable why) {
        for (BiConsumer<Integer, Throwable> l : listeners) {
            l.accept(peer, why);
        }
    }

    public boolean isBroken(int peer) {
        return cause[peer] != null;
    }

    public boolean anyBroken() {
        for (Throwable t : cause) {
            if (t != null) {
                return true;
            }
        }
        return false;
    }

    /** Throws if the link to {@code peer} is broken, with its cause. */
    public void requireIntact(int peer) {
        Throwable broken = cause[peer];
        if (broken != null) {
            throw new IllegalStateException("link to peer " + peer + " is broken: " + broken.getMessage(), broken);
        }
    }

    /** Rejects a peer number outside the world or this peer itself. */
    public static void checkPeer(int peer, int peers, int self) {
        if (peer < 0 || peer >= peers || peer == self) {
            throw new IllegalArgumentException("peer must be in [0, " + peers + ") and not " + self + " itself, was " + peer);
        }
    }
}
