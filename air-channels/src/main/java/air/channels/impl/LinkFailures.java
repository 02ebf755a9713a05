package air.channels.impl;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

/**
 * Which links of a transport are broken, and who hears of it: each link breaks once, with its
 * first cause; listeners are told of breaks the transport found itself, not of peers another
 * component declared lost. Reads are racy on purpose: a late read only delays the error.
 */
public final class LinkFailures {

    private final Throwable[] cause;
    private final CopyOnWriteArrayList<BiConsumer<Integer, Throwable>> listeners = new CopyOnWriteArrayList<>();

    public LinkFailures(int peers) {
        cause = new Throwable[peers];
    }

    public void listen(BiConsumer<Integer, Throwable> listener) {
        listeners.add(listener);
    }

    /** Records the link to {@code peer} as broken; false when it already was. */
    public boolean mark(int peer, Throwable why) {
        synchronized (cause) {
            if (cause[peer] != null) {
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
