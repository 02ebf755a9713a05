package air.channels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.wire.FrameException;
import air.wire.WireIn;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What every transport must do; each implementation runs this suite through a subclass. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class TransportContract {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private final List<Transport> opened = new ArrayList<>();

    /** A connected network of {@code peers} transports, rank i at index i. */
    protected abstract List<Transport> createNetwork(int peers) throws Exception;

    /** Puts raw bytes on the wire from {@code from} to {@code to}, bypassing the encoder. */
    protected abstract void injectWire(List<Transport> network, int from, int to, int channel, ByteBuffer wire);

    private List<Transport> network(int peers) throws Exception {
        List<Transport> net = createNetwork(peers);
        opened.addAll(net);
        return net;
    }

    @AfterEach
    void closeAll() {
        opened.forEach(Transport::close);
    }

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(Frame f) {
        ByteBuffer p = f.payload().duplicate();
        byte[] bytes = new byte[p.remaining()];
        p.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    void peers_know_their_rank_and_the_world_size() throws Exception {
        List<Transport> net = network(3);
        for (int i = 0; i < 3; i++) {
            assertThat(net.get(i).self()).isEqualTo(i);
            assertThat(net.get(i).peers()).isEqualTo(3);
        }
    }

    @Test
    void a_frame_arrives_with_its_sender_channel_and_payload() throws Exception {
        List<Transport> net = network(2);
        net.get(0).send(1, Channels.data(3), text("hello"));
        Frame f = net.get(1).receive(Channels.data(3), WAIT);
        assertThat(f.peer()).isZero();
        assertThat(f.channel()).isEqualTo(Channels.data(3));
        assertThat(text(f)).isEqualTo("hello");
        assertThat(net.get(1).receive(Channels.data(3), Duration.ofMillis(20))).isNull();
    }

    @Test
    void a_wire_out_is_framed_in_place_and_arrives_whole_and_in_order_with_copied_frames() throws Exception {
        List<Transport> net = network(2);
        for (int i = 0; i < 50; i++) {
            if (i % 2 == 0) {
                WireOut out = new WireOut(8);
                out.putInt(i).putLong(-i).putString("frame " + i);
                net.get(0).send(1, Channels.data(1), out);
                assertThatThrownBy(() -> out.putByte(1)).isInstanceOf(IllegalStateException.class).hasMessageContaining("sent");
            } else {
                WireOut copy = new WireOut(8);
                copy.putInt(i).putLong(-i).putString("frame " + i);
                net.get(0).send(1, Channels.data(1), copy.buffer());
            }
        }
        for (int i = 0; i < 50; i++) {
            Frame f = net.get(1).receive(Channels.data(1), WAIT);
            WireIn in = new WireIn(f.payload(), f.peer());
            assertThat(in.getInt()).isEqualTo(i);
            assertThat(in.getLong()).isEqualTo(-i);
            assertThat(in.getString()).isEqualTo("frame " + i);
            assertThat(in.remaining()).isZero();
        }
    }

    @Test
    void frames_stay_in_order_per_sender_and_channel() throws Exception {
        List<Transport> net = network(2);
        int n = 2000;
        Thread sender = Thread.ofVirtual().start(() -> {
            for (int i = 0; i < n; i++) {
                net.get(0).send(1, Channels.data(0), ByteBuffer.allocate(4).putInt(0, i));
            }
        });
        for (int i = 0; i < n; i++) {
            Frame f = net.get(1).receive(Channels.data(0), WAIT);
            assertThat(f.payload().getInt(0)).isEqualTo(i);
        }
        sender.join();
    }

    @Test
    void control_frames_do_not_wait_behind_unread_data() throws Exception {
        List<Transport> net = network(2);
        for (int i = 0; i < 100; i++) {
            net.get(0).send(1, Channels.data(0), ByteBuffer.allocate(1024));
        }
        net.get(0).send(1, Channels.CONTROL, text("stop"));
        assertThat(text(net.get(1).receive(Channels.CONTROL, WAIT))).isEqualTo("stop");
    }

    @Test
    void every_peer_can_send_to_every_other() throws Exception {
        int peers = 4;
        List<Transport> net = network(peers);
        for (int from = 0; from < peers; from++) {
            for (int to = 0; to < peers; to++) {
                if (from != to) {
                    net.get(from).send(to, Channels.CONTROL, text(from + "->" + to));
                }
            }
        }
        for (int to = 0; to < peers; to++) {
            List<String> got = new ArrayList<>();
            for (int k = 0; k < peers - 1; k++) {
                got.add(text(net.get(to).receive(Channels.CONTROL, WAIT)));
            }
            int receiver = to;
            assertThat(got).containsExactlyInAnyOrderElementsOf(
                    IntStream.range(0, peers).filter(f -> f != receiver).mapToObj(f -> f + "->" + receiver).toList());
        }
    }

    @Test
    void malformed_frames_are_rejected_naming_the_peer() throws Exception {
        List<Transport> net = network(3);
        FrameCodec codec = new FrameCodec();
        ByteBuffer garbage = text("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        injectWire(net, 2, 0, Channels.CONTROL, garbage);
        assertThatThrownBy(() -> net.get(0).receive(Channels.CONTROL, WAIT))
                .isInstanceOf(FrameException.class).hasMessageContaining("from peer 2").hasMessageContaining("bad magic");

        ByteBuffer corrupted = codec.encode(Channels.CONTROL, text("payload"));
        corrupted.put(FrameCodec.HEADER_BYTES, (byte) 'X');
        injectWire(net, 1, 0, Channels.CONTROL, corrupted);
        assertThatThrownBy(() -> net.get(0).receive(Channels.CONTROL, WAIT))
                .isInstanceOf(FrameException.class).hasMessageContaining("from peer 1").hasMessageContaining("checksum mismatch");

        ByteBuffer huge = codec.encode(Channels.CONTROL, text("x"));
        huge.putInt(8, Integer.MAX_VALUE);
        injectWire(net, 2, 0, Channels.CONTROL, huge);
        assertThatThrownBy(() -> net.get(0).receive(Channels.CONTROL, WAIT))
                .isInstanceOf(FrameException.class).hasMessageContaining("from peer 2").hasMessageContaining("payload length");

        net.get(1).send(0, Channels.CONTROL, text("still fine"));
        assertThat(text(net.get(0).receive(Channels.CONTROL, WAIT))).isEqualTo("still fine");
    }

    @Test
    void a_closed_transport_refuses_use_and_wakes_its_receiver() throws Exception {
        List<Transport> net = network(2);
        Throwable[] seen = new Throwable[1];
        Thread receiver = Thread.ofVirtual().start(() -> {
            try {
                net.get(1).receive(Channels.CONTROL, Duration.ofSeconds(30));
            } catch (Throwable t) {
                seen[0] = t;
            }
        });
        while (receiver.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
        }
        net.get(1).close();
        receiver.join();
        assertThat(seen[0]).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> net.get(1).send(0, Channels.CONTROL, text("x"))).hasMessageContaining("closed");
    }
}
