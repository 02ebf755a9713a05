package air.mpj;

import static org.assertj.core.api.Assertions.assertThat;

import air.channels.Transport;
import air.channels.TransportContract;
import java.io.DataInputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/** The transport contract over MPJ Express niodev: one JVM per rank, started by {@link AgentProcesses}. */
class MpjTransportIT extends TransportContract {

    private final List<AgentProcesses> clusters = new ArrayList<>();
    private final List<RemoteTransport> agents = new ArrayList<>();

    @Override
    protected List<Transport> createNetwork(int peers) throws Exception {
        try (ServerSocket control = new ServerSocket(0, peers, InetAddress.getLoopbackAddress())) {
            control.setSoTimeout(60_000);
            AgentProcesses cluster = AgentProcesses.start(peers, MpjAgent.class.getName(),
                    List.of(Integer.toString(control.getLocalPort())), List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"));
            clusters.add(cluster);
            RemoteTransport[] byRank = new RemoteTransport[peers];
            for (int i = 0; i < peers; i++) {
                Socket s = control.accept();
                int rank = new DataInputStream(s.getInputStream()).readInt();
                byRank[rank] = new RemoteTransport(s, rank, peers);
            }
            agents.addAll(List.of(byRank));
            return List.of(byRank);
        }
    }

    @Override
    protected void injectWire(List<Transport> network, int from, int to, int channel, ByteBuffer wire) {
        ((RemoteTransport) network.get(from)).sendWire(to, channel, wire);
    }

    @Override
    protected boolean losesPeersAlone() {
        return false; // niodev breaks every link when one rank dies
    }

    @Override
    protected void crash(List<Transport> network, int peer) {
        throw new UnsupportedOperationException("MPJ niodev cannot lose one peer alone");
    }

    @AfterEach
    void endEveryPeer() throws Exception {
        agents.forEach(RemoteTransport::exit);
        for (AgentProcesses c : clusters) {
            c.await(20_000);
            c.close();
            for (int i = 0; i < c.peers(); i++) {
                assertThat(c.process(i).isAlive()).as("peer %d still running", i).isFalse();
            }
        }
    }
}
