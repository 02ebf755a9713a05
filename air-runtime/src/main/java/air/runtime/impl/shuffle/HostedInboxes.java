package air.runtime.impl.shuffle;

import java.util.concurrent.atomic.AtomicReferenceArray;

/** The inboxes of one final vertex on this peer, by global instance: the peer's own and those it took over. */
public final class HostedInboxes {

    private final AtomicReferenceArray<Inbox> inboxes;

    public HostedInboxes(int globalInstances) {
        inboxes = new AtomicReferenceArray<>(globalInstances);
    }

    public void host(int instance, Inbox inbox) {
        inboxes.set(instance, inbox);
    }

    /** The inbox of a global instance hosted here, or null. */
    public Inbox at(int instance) {
        return inboxes.get(instance);
    }

    public int size() {
        return inboxes.length();
    }
}
