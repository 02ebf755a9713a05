package air.channels;

import air.channels.impl.InJvmTransport;
import java.nio.ByteBuffer;
import java.util.List;

class InJvmTransportTest extends TransportContract {

    @Override
    protected List<Transport> createNetwork(int peers) {
        return InJvmTransports.network(peers);
    }

    @Override
    protected void injectWire(List<Transport> network, int from, int to, int channel, ByteBuffer wire) {
        ((InJvmTransport) network.get(from)).sendWire(to, channel, wire);
    }

    @Override
    protected void crash(List<Transport> network, int peer) {
        InJvmTransports.crash(network.get(peer), "killed by the test");
    }
}
