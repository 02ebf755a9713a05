package air.channels.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The rendezvous bounds each greeting as a whole: a drip-fed stranger does not keep the world from meeting. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RendezvousTest {

    /** A rank's greeting, then the table the rendezvous answers with. */
    private static String meet(int port, int rank) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeUTF("Sending Info");
            out.writeInt(20_000 + rank);
            out.writeInt(21_000 + rank);
            out.writeInt(rank);
            out.flush();
            return new DataInputStream(s.getInputStream()).readUTF();
        }
    }

    @Test
    void a_drip_fed_greeting_is_cut_off_at_its_deadline_and_the_world_still_meets() throws Exception {
        try (Rendezvous r = Rendezvous.onLoopback(2)) {
            AtomicReference<IOException> failed = new AtomicReference<>();
            CountDownLatch served = new CountDownLatch(1);
            Thread server = Thread.ofPlatform().daemon().start(() -> {
                try {
                    r.serve(20_000);
                } catch (IOException e) {
                    failed.set(e);
                } finally {
                    served.countDown();
                }
            });
            AtomicBoolean stop = new AtomicBoolean();
            // first in the queue: claims a 60000-byte greeting and sends one byte every 200 ms, inside
            // any per-read timeout; only a deadline for the whole greeting lets the acceptor go on
            Socket drip = new Socket(InetAddress.getLoopbackAddress(), r.port()); // connected before the ranks: accepted first
            CompletableFuture<Void> dripper = CompletableFuture.runAsync(() -> {
                try (Socket s = drip) {
                    OutputStream out = s.getOutputStream();
                    out.write(new byte[] {(byte) 0xEA, 0x60});
                    while (!stop.get()) {
                        out.write('x');
                        out.flush();
                        Thread.sleep(200); // the stranger's pace, not a synchronisation
                    }
                } catch (IOException | InterruptedException e) {
                    // refused: the rendezvous closed it
                }
            }, RendezvousTest::onItsOwnThread);
            try {
                long start = System.nanoTime();
                CompletableFuture<String> zero = CompletableFuture.supplyAsync(() -> uncheckedMeet(r.port(), 0), RendezvousTest::onItsOwnThread);
                CompletableFuture<String> one = CompletableFuture.supplyAsync(() -> uncheckedMeet(r.port(), 1), RendezvousTest::onItsOwnThread);
                assertThat(zero.get(15, TimeUnit.SECONDS)).startsWith("#Peer Information;").contains("@0;").endsWith("@1");
                assertThat(one.get(15, TimeUnit.SECONDS)).isEqualTo(zero.get());
                assertThat(served.await(15, TimeUnit.SECONDS)).isTrue();
                assertThat(failed.get()).isNull();
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("met within a few greeting deadlines")
                        .isLessThan(10_000);
            } finally {
                stop.set(true);
                dripper.get(10, TimeUnit.SECONDS);
                server.join(10_000);
            }
        }
    }

    /** Each party on a thread of its own (the common pool may have one thread on a 2-core machine: the dripper would starve the ranks). */
    private static void onItsOwnThread(Runnable r) {
        Thread.ofPlatform().daemon().start(r);
    }

    private static String uncheckedMeet(int port, int rank) {
        try {
            return meet(port, rank);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
