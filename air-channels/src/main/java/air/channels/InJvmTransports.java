package air.channels;

import air.channels.impl.InJvmTransport;
import java.util.List;

/** Several peers inside one JVM: for tests and for running cluster-shaped jobs on one machine. */
public final class InJvmTransports {

    private InJvmTransports() {
    }

    /** {@code peers} connected transports; element {@code i} is rank {@code i}. */
    public static List<Transport> network(int peers) {
        return List.of(InJvmTransport.network(peers, 256, new FrameCodec()));
    }
}
