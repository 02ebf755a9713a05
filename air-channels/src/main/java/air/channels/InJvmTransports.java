package air.channels;

import air.channels.impl.InJvmTransport;
import java.util.List;
import java.util.Objects;

/**
 * Several peers inside one JVM: for tests and for running cluster-shaped jobs on one machine. The
 * network survives the loss of a peer as AIR's TCP transport does ({@link #crash}: only the links
 * to the lost peer break), so replication's takeover runs over it too.
 */
public final class InJvmTransports {

    /** Frames in flight per (receiver, channel) before a sender waits. */
    private static final int QUEUE = 256;

    /**
     * Sees every frame of an in-JVM network before it is handed over, on the sending thread: a
     * simulation numbers them, perturbs their timing, or loses the sending peer
     * ({@link #crash}) and throws, so that the frame is never delivered. Called from many threads
     * at once; it must be thread-safe. What it throws fails that send.
     */
    @FunctionalInterface
    public interface SendHook {

        /** No hook. */
        SendHook NONE = (from, to, channel) -> { };

        void beforeSend(int from, int to, int channel);
    }

    private InJvmTransports() {
    }

    /** {@code peers} connected transports; element {@code i} is rank {@code i}. */
    public static List<Transport> network(int peers) {
        return network(peers, SendHook.NONE);
    }

    /** {@code peers} connected transports whose every send passes {@code hook} first. */
    public static List<Transport> network(int peers, SendHook hook) {
        Objects.requireNonNull(hook, "InJvmTransports.network(peers, hook): hook is null");
        return List.of(InJvmTransport.network(peers, QUEUE, new FrameCodec(), true, hook));
    }

    /**
     * A network that says it cannot survive a peer's loss, as MPJ Express niodev cannot: the
     * runtime refuses replication over it. For tests of that refusal; it works as {@link #network(int)}.
     */
    public static List<Transport> networkNotSurvivingPeerLoss(int peers) {
        return List.of(InJvmTransport.network(peers, QUEUE, new FrameCodec(), false, SendHook.NONE));
    }

    /**
     * Loses {@code peer} (a transport of an in-JVM network) as a killed process is lost: its frames
     * stop at once, sends to it fail (also those blocked waiting for room), its own blocked calls
     * wake with an error that says {@code why}, and every other peer's link-failure listeners
     * ({@link Transport#onLinkFailure}) hear of it on a thread of their own. Idempotent.
     */
    public static void crash(Transport peer, String why) {
        if (!(peer instanceof InJvmTransport t)) {
            throw new IllegalArgumentException("InJvmTransports.crash: " + peer + " is not a transport of an in-JVM network");
        }
        t.crash(Objects.requireNonNull(why, "InJvmTransports.crash(peer, why): why is null"));
    }
}
