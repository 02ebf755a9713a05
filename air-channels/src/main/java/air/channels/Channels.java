package air.channels;

/**
 * The fixed channels. Control and heartbeats have channels of their own so that they never wait
 * behind bulk data; each shuffle edge's data gets {@code DATA_BASE + edge}. Replication (copies of
 * peers' state, acknowledgements, takeovers) has its own channel, on a lane of its own over TCP.
 */
public final class Channels {

    public static final int CONTROL = 0;
    public static final int HEARTBEAT = 1;
    public static final int REPLICA = 2;
    public static final int DATA_BASE = 3;

    private Channels() {
    }

    public static int data(int edge) {
        if (edge < 0 || edge > 0xFFFF - DATA_BASE) {
            throw new IllegalArgumentException("edge must be in [0, " + (0xFFFF - DATA_BASE) + "], was " + edge);
        }
        return DATA_BASE + edge;
    }
}
