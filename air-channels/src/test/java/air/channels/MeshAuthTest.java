package air.channels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A mesh greeting proves the world's secret over a fresh nonce; anything else is refused with the reason. */
class MeshAuthTest {

    private static MeshAuth.Hello greet(MeshAuth acceptor, MeshAuth dialer, int rank) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> dialing = CompletableFuture.runAsync(() -> {
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
                    dialer.dial(s, "test", 0x41495254, rank, 1, 10_000);
                } catch (Exception e) {
                    // the acceptor refused: its side says why
                }
            });
            try (Socket s = server.accept()) {
                MeshAuth.Hello h = acceptor.accept(s, "test", 0x41495254);
                MeshAuth.confirm(s);
                return h;
            } finally {
                dialing.get(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void the_same_secret_is_a_member_and_another_is_refused() throws Exception {
        assertThat(greet(MeshAuth.of("a"), MeshAuth.of("a"), 3)).isEqualTo(new MeshAuth.Hello(3, 1));
        assertThat(greet(MeshAuth.NONE, MeshAuth.NONE, 2)).isEqualTo(new MeshAuth.Hello(2, 1));
        assertThatThrownBy(() -> greet(MeshAuth.of("a"), MeshAuth.of("b"), 3)).hasMessageContaining("claims rank 3")
                .hasMessageContaining("does not know the world's secret (AIR_SECRET)");
        assertThatThrownBy(() -> greet(MeshAuth.of("a"), MeshAuth.NONE, 3)).hasMessageContaining("does not know the world's secret");
    }

    @Test
    void silence_and_garbage_are_refused_in_bounded_time() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 2, InetAddress.getLoopbackAddress());
             Socket silent = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
             Socket garbage = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
            try (Socket s = server.accept()) {
                assertThatThrownBy(() -> MeshAuth.NONE.accept(s, "test", 1)).hasMessageContaining("did not greet within 2000 ms");
            }
            garbage.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes());
            try (Socket s = server.accept()) {
                assertThatThrownBy(() -> MeshAuth.NONE.accept(s, "test", 1)).hasMessageContaining("not an AIR peer's");
            }
        }
    }

    @Test
    void the_secret_comes_from_the_environment_or_a_file(@TempDir Path dir) throws Exception {
        assertThat(MeshAuth.fromEnvironment(Map.of()).enabled()).isFalse();
        assertThat(MeshAuth.fromEnvironment(Map.of("AIR_SECRET", "x")).enabled()).isTrue();
        Path file = Files.writeString(dir.resolve("secret"), "from-a-file\n");
        assertThat(MeshAuth.fromEnvironment(Map.of("AIR_SECRET_FILE", file.toString())).enabled()).isTrue();
        assertThatThrownBy(() -> MeshAuth.fromEnvironment(Map.of("AIR_SECRET_FILE", dir.resolve("nope").toString())))
                .hasMessageContaining("AIR_SECRET_FILE=").hasMessageContaining("cannot be read");
        assertThat(MeshAuth.randomSecret()).hasSize(64).isNotEqualTo(MeshAuth.randomSecret());
    }
}
