package air.channels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.wire.FrameException;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FrameCodecTest {

    private final FrameCodec codec = new FrameCodec(1024);

    @Test
    void round_trips_payloads_of_every_size_up_to_the_limit() {
        Random random = new Random(11);
        for (int size : new int[] {0, 1, 15, 16, 17, 1000, 1024}) {
            byte[] bytes = new byte[size];
            random.nextBytes(bytes);
            Frame f = codec.decode(3, codec.encode(7, ByteBuffer.wrap(bytes)));
            assertThat(f.peer()).isEqualTo(3);
            assertThat(f.channel()).isEqualTo(7);
            byte[] back = new byte[f.payload().remaining()];
            f.payload().duplicate().get(back);
            assertThat(back).isEqualTo(bytes);
        }
    }

    @Test
    void sealing_in_place_gives_the_same_bytes_as_encoding_a_copy() {
        Random random = new Random(12);
        for (int size : new int[] {0, 1, 17, 1000, 1024}) {
            byte[] bytes = new byte[size];
            random.nextBytes(bytes);
            WireOut out = new WireOut(4);
            for (byte b : bytes) {
                out.putByte(b);
            }
            assertThat(codec.seal(7, out)).isEqualTo(codec.encode(7, ByteBuffer.wrap(bytes)));
        }
        WireOut tooBig = new WireOut(2048);
        for (int i = 0; i < 1025; i++) {
            tooBig.putByte(i);
        }
        assertThatThrownBy(() -> codec.seal(7, tooBig)).hasMessageContaining("exceeds the limit of 1024");
    }

    private ByteBuffer good() {
        return codec.encode(1, ByteBuffer.wrap(new byte[] {1, 2, 3}));
    }

    @Test
    void rejects_what_is_not_a_valid_frame() {
        assertThatThrownBy(() -> codec.decode(5, ByteBuffer.allocate(3)))
                .isInstanceOf(FrameException.class).hasMessage("malformed frame from peer 5: 3 bytes is shorter than the 16-byte header");
        ByteBuffer version = good();
        version.putShort(4, (short) 9);
        assertThatThrownBy(() -> codec.decode(5, version)).hasMessageContaining("protocol version 9, this peer speaks 1");
        ByteBuffer truncated = good();
        truncated.limit(truncated.limit() - 1);
        assertThatThrownBy(() -> codec.decode(5, truncated)).hasMessageContaining("announces 3 payload bytes but 2 arrived");
        ByteBuffer negative = good();
        negative.putInt(8, -1);
        assertThatThrownBy(() -> codec.decode(5, negative)).hasMessageContaining("payload length -1 outside [0, 1024]");
        assertThatThrownBy(() -> codec.encode(1, ByteBuffer.allocate(1025))).hasMessageContaining("exceeds the limit of 1024");
        assertThatThrownBy(() -> codec.encode(70000, ByteBuffer.allocate(1))).hasMessageContaining("channel must be in [0, 65535]");
    }
}
