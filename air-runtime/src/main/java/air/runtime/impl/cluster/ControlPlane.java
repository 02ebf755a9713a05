package air.runtime.impl.cluster;

import air.channels.Channels;
import air.channels.Frame;
import air.channels.Transport;
import air.wire.FrameException;
import air.wire.WireIn;
import air.wire.WireOut;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only reader of the CONTROL channel: decodes typed messages and queues them per (kind, job),
 * except aborts and membership messages, which go straight to their listeners. Messages: PLAN (a
 * plan fingerprint), ABORT (a peer's job failed, with why), DONE (a peer finished its part), GATHER
 * (bytes for rank 0), HELLO (a peer's liveness address), VIEW (a numbered membership view, in the
 * bytes), SUSPECT (a peer its sender suspects, reported to the coordinator; the job field holds the
 * sender's view number), LEAVE (the sender closed its session: whatever it sent before has been
 * dispatched by the time it is heard), STOP (the sender's job stopped at the savepoint in the text:
 * every peer wrote it; it goes to the abort listener as well, so that a running job stops too).
 */
public final class ControlPlane implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ControlPlane.class);

    public enum Kind { PLAN, ABORT, DONE, GATHER, HELLO, VIEW, SUSPECT, LEAVE, STOP }

    /** One control message from a peer. */
    public record Message(int peer, Kind kind, long job, String text, byte[] bytes) { }

    private final Transport transport;
    private final ConcurrentHashMap<String, LinkedBlockingQueue<Message>> queues = new ConcurrentHashMap<>();
    private final Consumer<Message> onAbort;
    private volatile Consumer<Message> onMembership = m -> { };
    private volatile Consumer<Message> onLeave = m -> { };
    private final Consumer<RuntimeException> onGarbage;
    private final Thread reader;
    private volatile boolean closed;

    public ControlPlane(Transport transport, Consumer<Message> onAbort, Consumer<RuntimeException> onGarbage) {
        this.transport = transport;
        this.onAbort = onAbort;
        this.onGarbage = onGarbage;
        this.reader = Thread.ofPlatform().daemon().name("air-control-" + transport.self()).start(this::readLoop);
    }

    private void readLoop() {
        while (!closed) {
            try {
                Frame f = transport.receive(Channels.CONTROL, Duration.ofMillis(200));
                if (f != null) {
                    dispatch(decode(f));
                }
            } catch (FrameException e) {
                LOG.warn("ignoring a malformed control message: {}", e.getMessage());
                onGarbage.accept(e);
            } catch (IllegalStateException e) {
                if (!closed) {
                    LOG.debug("control channel closed", e);
                }
                return;
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static Message decode(Frame f) {
        WireIn in = new WireIn(f.payload(), f.peer());
        int k = in.getByte();
        if (k < 0 || k >= Kind.values().length) {
            throw in.malformed("unknown control message kind " + k);
        }
        Kind kind = Kind.values()[k];
        long job = in.getLong();
        String text = in.getString();
        byte[] bytes = in.getBytes();
        return new Message(f.peer(), kind, job, text, bytes);
    }

    /** Where VIEW and SUSPECT messages go (they are not queued). */
    public void onMembership(Consumer<Message> listener) {
        onMembership = listener;
    }

    /** Where LEAVE messages go (they are not queued), on the reader's thread, after every earlier message of that peer. */
    public void onLeave(Consumer<Message> listener) {
        onLeave = listener;
    }

    private void dispatch(Message m) {
        if (m.kind == Kind.LEAVE) {
            onLeave.accept(m);
            return;
        }
        if (m.kind == Kind.VIEW || m.kind == Kind.SUSPECT) {
            onMembership.accept(m);
            return;
        }
        if (m.kind == Kind.ABORT || m.kind == Kind.STOP) {
            onAbort.accept(m);
        }
        queueOf(m.kind, m.job).add(m);
    }

    private LinkedBlockingQueue<Message> queueOf(Kind kind, long job) {
        return queues.computeIfAbsent(kind + "/" + job, k -> new LinkedBlockingQueue<>());
    }

    public void send(int peer, Kind kind, long job, String text, byte[] bytes) {
        WireOut out = new WireOut(32 + text.length() + bytes.length);
        out.putByte(kind.ordinal()).putLong(job).putString(text).putBytes(bytes);
        transport.send(peer, Channels.CONTROL, out);
    }

    public void sendToAll(Kind kind, long job, String text, byte[] bytes) {
        sendToAll(kind, job, text, bytes, p -> false);
    }

    /** To every other peer but those {@code skip} names (peers known to be lost). */
    public void sendToAll(Kind kind, long job, String text, byte[] bytes, IntPredicate skip) {
        for (int p = 0; p < transport.peers(); p++) {
            if (p != transport.self() && !skip.test(p)) {
                send(p, kind, job, text, bytes);
            }
        }
    }

    /** The next message of this kind for this job, or null after {@code timeoutMs}. */
    public Message next(Kind kind, long job, long timeoutMs) throws InterruptedException {
        return queueOf(kind, job).poll(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** Drops what is queued for a finished job. */
    public void forget(long job) {
        for (Kind k : Kind.values()) {
            queues.remove(k + "/" + job);
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            reader.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
