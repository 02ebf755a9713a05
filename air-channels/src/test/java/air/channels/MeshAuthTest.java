package air.channels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A mesh greeting proves the world's secret over a fresh nonce; anything else is refused with the reason. */
class MeshAuthTest {

    private static MeshAuth.Hello greet(MeshAuth acceptor, MeshAuth dialer, int rank) throws Exception {
        return greet(acceptor, acceptor, dialer, rank, new AtomicReference<>());
    }

    /** {@code confirming}: the secret the acceptor proves itself with (a stranger's differs from the one it checks with). */
    private static MeshAuth.Hello greet(MeshAuth acceptor, MeshAuth confirming, MeshAuth dialer, int rank,
                                        AtomicReference<Exception> dialerSaw) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> dialing = CompletableFuture.runAsync(() -> {
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
                    dialer.dial(s, "test", 0x41495254, rank, 1, 10_000);
                } catch (Exception e) {
                    dialerSaw.set(e); // refused by the acceptor, or the acceptor could not prove itself
                }
            });
            try (Socket s = server.accept()) {
                MeshAuth.Hello h = acceptor.accept(s, "test", 0x41495254);
                confirming.confirm(s, "test", h);
                return h;
            } finally {
                dialing.get(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void the_same_secret_is_a_member_and_another_is_refused() throws Exception {
        assertThat(greet(MeshAuth.of("a"), MeshAuth.of("a"), 3)).isEqualTo(new MeshAuth.Hello(3, 1, new byte[0]));
        assertThat(greet(MeshAuth.NONE, MeshAuth.NONE, 2)).isEqualTo(new MeshAuth.Hello(2, 1, new byte[0]));
        assertThatThrownBy(() -> greet(MeshAuth.of("a"), MeshAuth.of("b"), 3)).hasMessageContaining("claims rank 3")
                .hasMessageContaining("does not know the world's secret (AIR_SECRET)");
        assertThatThrownBy(() -> greet(MeshAuth.of("a"), MeshAuth.NONE, 3)).hasMessageContaining("does not know the world's secret");
    }

    @Test
    void a_stranger_listening_where_a_peer_should_be_is_refused_by_the_dialer() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> stranger = CompletableFuture.runAsync(() -> {
                // it speaks the greeting's form and says "accepted", but cannot prove the secret
                try (Socket s = server.accept()) {
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    out.writeInt(0x41495254);
                    out.write(2); // the greeting's version
                    out.write(new byte[16]);
                    out.flush();
                    new DataInputStream(s.getInputStream()).readNBytes(4 + 4 + 1 + 32 + 16);
                    out.write(0x59);
                    out.write(new byte[32]);
                    out.flush();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
                assertThatThrownBy(() -> MeshAuth.of("a").dial(s, "test", 0x41495254, 3, 1, 10_000))
                        .hasMessageContaining("accepted rank 3 but cannot prove the world's secret").hasMessageContaining("not a member");
            }
            stranger.get(10, TimeUnit.SECONDS);
        }
        AtomicReference<Exception> member = new AtomicReference<>();
        greet(MeshAuth.of("a"), MeshAuth.of("a"), MeshAuth.of("a"), 3, member);
        assertThat(member.get()).as("a member proves itself to the dialer").isNull();
    }

    @Test
    @SuppressWarnings("try") // the silent client is held open, never written to
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
    void a_drip_fed_greeting_is_cut_off_at_the_deadline_for_the_whole_greeting() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket dripping = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
            AtomicBoolean stop = new AtomicBoolean();
            CompletableFuture<Void> dripper = CompletableFuture.runAsync(() -> {
                try {
                    dripping.getOutputStream().write(new byte[] {0x41, 0x49, 0x52, 0x54}); // the right magic, then a byte at a time
                    while (!stop.get()) {
                        dripping.getOutputStream().write(0);
                        Thread.sleep(250); // the stranger's pace, well inside a per-read timeout; not a synchronisation
                    }
                } catch (IOException | InterruptedException e) {
                    // refused: the acceptor closed it
                }
            }, r -> Thread.ofPlatform().daemon().start(r));
            try (Socket s = server.accept()) {
                long start = System.nanoTime();
                assertThatThrownBy(() -> MeshAuth.NONE.accept(s, "test", 0x41495254)).hasMessageContaining("did not greet within 2000 ms");
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("cut off near the 2 s deadline, not after 57 drips")
                        .isLessThan(6_000);
            } finally {
                stop.set(true);
                dripper.get(10, TimeUnit.SECONDS);
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
