package air.replication.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.wire.FrameException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A body cut into chunks of any size reads back as written, ints and byte arrays split across chunks included. */
class ChunksTest {

    /** A header of the right size whose first int is the chunk's index and whose second is the count. */
    private static final Chunks.Header HEADER = (frame, index, count, data) ->
            frame.putInt(index).putInt(count).put(new byte[Chunks.HEADER_BYTES - 12]).putInt(data);

    @Test
    void a_body_cut_into_chunks_of_any_size_reads_back_as_written() {
        byte[] name = "v0/3".getBytes(StandardCharsets.UTF_8);
        byte[] state = new byte[37];
        for (int i = 0; i < state.length; i++) {
            state[i] = (byte) (i * 7);
        }
        long body = 4 + 4 + name.length + 4 + state.length + 4;
        for (int chunkBytes = 1; chunkBytes <= body + 1; chunkBytes++) {
            Chunks.Out out = new Chunks.Out(body, chunkBytes, HEADER);
            out.putInt(0x01020304).putBytes(name).putBytes(state).putInt(-5);
            List<ByteBuffer> frames = out.frames();
            assertThat(frames).hasSize((int) Chunks.count(body, chunkBytes));
            List<ByteBuffer> data = new ArrayList<>();
            for (int i = 0; i < frames.size(); i++) {
                ByteBuffer f = frames.get(i);
                assertThat(f.getInt(0)).isEqualTo(i);
                assertThat(f.getInt(4)).isEqualTo(frames.size());
                int length = f.getInt(Chunks.HEADER_BYTES - 4);
                assertThat(length).isBetween(1, chunkBytes).isEqualTo(f.remaining() - Chunks.HEADER_BYTES);
                data.add(f.duplicate().position(Chunks.HEADER_BYTES).slice());
            }
            Chunks.In in = new Chunks.In(2, data);
            assertThat(in.getInt()).isEqualTo(0x01020304);
            assertThat(in.getString()).isEqualTo("v0/3");
            assertThat(in.getBytes()).isEqualTo(state);
            assertThat(in.getInt()).isEqualTo(-5);
            assertThat(in.remaining()).isZero();
            assertThat(data).as("chunks are let go once read").containsOnlyNulls();
        }
    }

    @Test
    void a_body_written_longer_or_shorter_than_announced_is_a_bug_and_a_short_one_read_is_garbage_from_its_sender() {
        assertThatThrownBy(() -> new Chunks.Out(6, 4, HEADER).putInt(1).putInt(2)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("longer than the 6 bytes announced");
        assertThatThrownBy(() -> new Chunks.Out(8, 4, HEADER).putInt(1).frames()).isInstanceOf(IllegalStateException.class);
        Chunks.In in = new Chunks.In(2, new ArrayList<>(List.of(ByteBuffer.wrap(new byte[] {0, 0}), ByteBuffer.wrap(new byte[] {0, 3, 1}))));
        assertThatThrownBy(in::getBytes).isInstanceOf(FrameException.class).hasMessageContaining("from peer 2")
                .hasMessageContaining("count 3 does not fit in the 1 bytes left of the copy");
    }
}
