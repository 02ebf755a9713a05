package air.channels.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.Channels;
import air.channels.FrameCodec;
import air.channels.MeshAuth;
import air.channels.Transport;
import air.channels.TransportContract;
import air.channels.bootstrap.Rendezvous;
import air.wire.FrameException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TcpTransportTest extends TransportContract {

    /** Peers start in parallel: each blocks at the rendezvous until all have arrived. */
    private static final Executor STARTER = r -> Thread.ofVirtual().start(r);

    @Override
    protected List<Transport> createNetwork(int peers) throws Exception {
        return network(peers);
    }

    static List<Transport> network(int peers) throws Exception {
        return new ArrayList<>(TcpTransport.onLoopback(peers, 20_000));
    }

    @Override
    protected void injectWire(List<Transport> network, int from, int to, int channel, ByteBuffer wire) {
        ((TcpTransport) network.get(from)).sendWire(to, channel, wire);
    }

    @Override
    protected void crash(List<Transport> network, int peer) {
        ((TcpTransport) network.get(peer)).crash();
    }

    /**
     * Large frames on a channel nobody reads: the receive queue stops at its byte budget (before:
     * 256 frames whatever their size, 60 frames of 4 MiB all queued), the sender is held back, and
     * once the channel is read every frame arrives, in order.
     */
    @Test
    void a_channel_not_read_holds_at_most_its_byte_budget_and_the_sender_waits_losing_nothing() throws Exception {
        List<Transport> net = network(2);
        int frames = 60;
        int frameBytes = 4 << 20;
        int channel = Channels.DATA_BASE;
        try {
            TcpTransport receiver = (TcpTransport) net.get(1);
            CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < frames; i++) {
                    byte[] payload = new byte[frameBytes];
                    payload[0] = (byte) i;
                    payload[frameBytes - 1] = (byte) ~i;
                    net.get(0).send(1, channel, ByteBuffer.wrap(payload));
                }
            }, r -> Thread.ofPlatform().daemon().start(r));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (receiver.queuedBytes(channel) < TcpTransport.QUEUE_BYTES) {
                assertThat(System.nanoTime()).as("the receive queue fills up to its budget").isLessThan(deadline);
                assertThat(sent).as("the sender is held back").isNotDone();
                Thread.onSpinWait();
            }
            assertThat(receiver.queuedBytes(channel)).isEqualTo(TcpTransport.QUEUE_BYTES);
            assertThat(sent).as("the sender is held back").isNotDone();
            for (int i = 0; i < frames; i++) {
                var frame = receiver.receive(channel, Duration.ofSeconds(20));
                assertThat(frame).as("frame " + i).isNotNull();
                ByteBuffer b = frame.payload();
                assertThat(b.remaining()).isEqualTo(frameBytes);
                assertThat(b.get(b.position())).isEqualTo((byte) i);
                assertThat(b.get(b.position() + frameBytes - 1)).isEqualTo((byte) ~i);
                assertThat(receiver.queuedBytes(channel)).isLessThanOrEqualTo(TcpTransport.QUEUE_BYTES);
            }
            sent.get(20, TimeUnit.SECONDS);
            assertThat(receiver.queuedBytes(channel)).isZero();
        } finally {
            net.forEach(Transport::close);
        }
    }

    /**
     * A delivery mark waits behind every data frame sent before it: with the receiver's queue full
     * ({@link TcpTransport#RECEIVE_QUEUE} frames nobody reads) and 40 more behind them, the wait
     * cannot be over before the reader has taken 40 frames, and it is once all were taken; a wait
     * stuck behind a full queue fails when the receiver crashes.
     */
    @Test
    void a_delivery_is_confirmed_only_once_every_data_frame_sent_before_it_is_in_the_receivers_queues() throws Exception {
        List<Transport> net = network(2);
        int behind = 40;
        int frames = TcpTransport.RECEIVE_QUEUE + behind;
        int channel = Channels.data(1);
        try {
            for (int i = 0; i < frames; i++) {
                net.get(0).send(1, channel, ByteBuffer.wrap(new byte[] {(byte) i}));
            }
            CompletableFuture<Void> delivered = net.get(0).delivered(1);
            for (int i = 0; i < frames; i++) {
                if (i < behind) {
                    assertThat(delivered).as("delivery confirmed with only %d of %d frames taken", i, frames).isNotDone();
                }
                var frame = net.get(1).receive(channel, Duration.ofSeconds(20));
                assertThat(frame).as("frame " + i).isNotNull();
                assertThat(frame.payload().get(frame.payload().position())).isEqualTo((byte) i);
            }
            delivered.get(20, TimeUnit.SECONDS);

            for (int i = 0; i < frames; i++) {
                net.get(0).send(1, channel, ByteBuffer.wrap(new byte[] {(byte) i}));
            }
            CompletableFuture<Void> stuck = net.get(0).delivered(1);
            assertThat(stuck).as("behind a full queue").isNotDone();
            crash(net, 1);
            assertThatThrownBy(() -> stuck.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("delivery to peer 1 not confirmed");
        } finally {
            net.forEach(Transport::close);
        }
    }

    @Test
    void garbage_on_a_peer_socket_is_an_error_naming_the_peer_and_drops_only_that_link() throws Exception {
        List<Transport> net = network(2);
        try {
            TcpTransport t = (TcpTransport) net.get(0);
            // bytes that are not [channel][length][frame]: an HTTP request on the data lane
            t.sendWireRaw(1, 1, "GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThatThrownBy(() -> net.get(1).receive(Channels.CONTROL, Duration.ofSeconds(10)))
                    .isInstanceOf(FrameException.class).hasMessageContaining("from peer 0").hasMessageContaining("not AIR frames");
        } finally {
            net.forEach(Transport::close);
        }
    }

    @Test
    void strangers_at_the_mesh_port_are_refused_and_the_world_still_connects() throws Exception {
        Rendezvous rv = Rendezvous.onLoopback(2);
        rv.serveInBackground(20_000, e -> { });
        InetSocketAddress at = new InetSocketAddress(InetAddress.getLoopbackAddress(), rv.port());
        MeshAuth auth = MeshAuth.of("s3cret");
        CompletableFuture<TcpTransport> zero = CompletableFuture.supplyAsync(() -> {
            try {
                return TcpTransport.start(0, 2, at, InetAddress.getLoopbackAddress(), new FrameCodec(), auth, 20_000);
            } catch (Exception e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }, STARTER);
        // play rank 1 at the rendezvous, then reach rank 0's mesh port as strangers before greeting it properly
        try (ServerSocket mine = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket s = new Socket(InetAddress.getLoopbackAddress(), rv.port())) {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeUTF("Sending Info");
            out.writeInt(mine.getLocalPort());
            out.writeInt(mine.getLocalPort());
            out.writeInt(1);
            out.flush();
            String table = new DataInputStream(s.getInputStream()).readUTF();
            int zeroPort = Integer.parseInt(table.split(";")[1].split("@")[1]);
            List<Socket> strangers = new ArrayList<>();
            try {
                Socket garbage = new Socket(InetAddress.getLoopbackAddress(), zeroPort); // garbage instead of a greeting
                garbage.getOutputStream().write("HELLO? this is not a peer".getBytes(StandardCharsets.US_ASCII));
                strangers.add(garbage);
                strangers.add(new Socket(InetAddress.getLoopbackAddress(), zeroPort)); // silent: refused after the greeting timeout
                Socket wrongSecret = new Socket(InetAddress.getLoopbackAddress(), zeroPort);
                strangers.add(wrongSecret);
                assertThatThrownBy(() -> MeshAuth.of("guess").dial(wrongSecret, TcpTransport.PURPOSE, TcpTransport.HELLO, 1, 0, 20_000))
                        .as("a wrong secret is refused, and the dialer says so").isInstanceOf(IOException.class)
                        .hasMessageContaining("refused rank 1").hasMessageContaining("a different AIR_SECRET?");
                for (int lane = 0; lane < TcpTransport.LANES; lane++) { // then the real rank 1, with the world's secret
                    Socket peer = new Socket(InetAddress.getLoopbackAddress(), zeroPort);
                    auth.dial(peer, TcpTransport.PURPOSE, TcpTransport.HELLO, 1, lane, 20_000);
                    strangers.add(peer);
                }
                TcpTransport t = zero.get(20, TimeUnit.SECONDS);
                assertThat(t.peers()).isEqualTo(2);
                t.close();
            } finally {
                for (Socket x : strangers) {
                    x.close();
                }
            }
        }
    }

    @Test
    void strangers_at_the_rendezvous_are_refused_and_the_world_still_meets() throws Exception {
        Rendezvous rv = Rendezvous.onLoopback(2);
        rv.serveInBackground(20_000, e -> { });
        List<Socket> strangers = new ArrayList<>();
        try {
            Socket garbage = new Socket(InetAddress.getLoopbackAddress(), rv.port());
            garbage.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            strangers.add(garbage);
            strangers.add(new Socket(InetAddress.getLoopbackAddress(), rv.port())); // silent
            Socket outside = new Socket(InetAddress.getLoopbackAddress(), rv.port()); // a rank outside the world
            DataOutputStream out = new DataOutputStream(outside.getOutputStream());
            out.writeUTF("Sending Info");
            out.writeInt(1);
            out.writeInt(1);
            out.writeInt(7);
            out.flush();
            strangers.add(outside);
            InetSocketAddress at = new InetSocketAddress(InetAddress.getLoopbackAddress(), rv.port());
            List<CompletableFuture<TcpTransport>> peers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                int rank = r;
                peers.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return TcpTransport.start(rank, 2, at, InetAddress.getLoopbackAddress(), new FrameCodec(), 20_000);
                    } catch (Exception e) {
                        throw new IllegalStateException(e.getMessage(), e);
                    }
                }, STARTER));
            }
            for (CompletableFuture<TcpTransport> p : peers) {
                TcpTransport t = p.get(30, TimeUnit.SECONDS);
                assertThat(t.peers()).isEqualTo(2);
                t.close();
            }
        } finally {
            for (Socket x : strangers) {
                x.close();
            }
        }
    }
}
