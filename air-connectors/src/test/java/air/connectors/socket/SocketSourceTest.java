package air.connectors.socket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.dsl.Checkpoints;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Sources;
import air.runtime.Job;
import air.runtime.JobConfig;
import air.runtime.JobFailedException;
import air.runtime.api.BadRecordPolicy;
import air.runtime.api.DeadLetter;
import air.runtime.sink.CollectSink;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The socket source against a real TCP server on loopback: lines, bad lines, reconnects, and its refusal under checkpoints. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SocketSourceTest {

    private ServerSocket server;
    private Thread serving;

    @BeforeEach
    void listen() throws IOException {
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        if (serving != null) {
            serving.join(10_000);
        }
    }

    /** Serves each text to one connection, in turn, closing it after; waits for {@code between} before accepting the next. */
    private void serve(CountDownLatch between, String... connections) {
        serving = Thread.ofVirtual().start(() -> {
            try {
                for (int i = 0; i < connections.length; i++) {
                    if (i > 0) {
                        between.await();
                    }
                    try (Socket s = server.accept(); OutputStream out = s.getOutputStream()) {
                        out.write(connections[i].getBytes(StandardCharsets.ISO_8859_1));
                    }
                }
            } catch (IOException | InterruptedException e) {
                // the test ended
            }
        });
    }

    private int port() {
        return server.getLocalPort();
    }

    @Test
    void readsLinesAndAccountsForEveryBadOne() {
        String longLine = "x".repeat(200);
        serve(new CountDownLatch(0), "one\r\ntwo\n" + longLine + "\nbad \u00ff\u00fe\nthree\nfour-without-newline");
        CollectSink<String> out = Sinks.collect();
        CollectSink<DeadLetter> dead = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(SocketSources.lines("127.0.0.1", port()).endAtDisconnect().maxLineBytes(100)
                .onBadRecord(BadRecordPolicy.deadLetter(dead))).writeTo(out);
        p.execute(JobConfig.defaults().name("socket").workers(2));
        assertThat(out.items()).containsExactly("one", "two", "three", "four-without-newline");
        assertThat(dead.items()).extracting(DeadLetter::origin).containsExactly("127.0.0.1:" + port() + " line 3",
                "127.0.0.1:" + port() + " line 4");
        assertThat(dead.items().get(0).error()).contains("longer than 100 bytes");
        assertThat(dead.items().get(1).error()).contains("not UTF-8");
    }

    @Test
    void failsNamingTheLineUnderFail() {
        serve(new CountDownLatch(0), "ok\n" + "y".repeat(50) + "\n");
        Pipeline p = Pipeline.create();
        p.readFrom(SocketSources.lines("127.0.0.1", port()).endAtDisconnect().maxLineBytes(10)).writeTo(Sinks.collect());
        assertThatThrownBy(() -> p.execute(JobConfig.defaults().name("socket"))).isInstanceOf(JobFailedException.class)
                .hasMessageContaining("127.0.0.1:" + port() + " line 2").hasMessageContaining("longer than 10 bytes");
    }

    @Test
    void connectsAgainWhenTheServerClosesTheConnection() {
        CountDownLatch firstRead = new CountDownLatch(1);
        serve(firstRead, "a\nb\n", "c\nd\n");
        List<String> out = new CopyOnWriteArrayList<>();
        Pipeline p = Pipeline.create();
        p.readFrom(SocketSources.lines("127.0.0.1", port()).reconnectDelay(Duration.ofMillis(10))).writeTo(Sinks.callback(out::add));
        Job job = p.submit(JobConfig.defaults().name("socket"));
        try {
            awaitItems(out, 2);
            firstRead.countDown();
            awaitItems(out, 4);
        } finally {
            job.cancel();
            job.join();
        }
        assertThat(out).containsExactly("a", "b", "c", "d");
    }

    @Test
    void isRefusedUnderCheckpointsNamingTheFix(@TempDir Path dir) {
        Pipeline p = Pipeline.create();
        p.readFrom(SocketSources.lines("127.0.0.1", port())).writeTo(Sinks.collect());
        assertThatThrownBy(() -> p.execute(JobConfig.defaults().name("socket").checkpoints(Checkpoints.toDirectory(dir), 100)))
                .hasMessageContaining("socket(127.0.0.1:" + port()).hasMessageContaining("cannot be replayed")
                .hasMessageContaining("KafkaSources");
    }

    @Test
    void pushSourcesAreRefusedUnderCheckpointsNamingTheCall(@TempDir Path dir) {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.<String>push(16)).writeTo(Sinks.collect());
        assertThatThrownBy(() -> p.execute(JobConfig.defaults().name("push").checkpoints(Checkpoints.toDirectory(dir), 100)))
                .hasMessageContaining("cannot be replayed").hasMessageContaining("Sources.push");
    }

    private static void awaitItems(List<String> out, int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (out.size() < n) {
            assertThat(System.nanoTime()).as("%d items within 30 s, got %s", n, out).isLessThan(deadline);
            LockSupport.parkNanos(2_000_000); // polled: the job runs on its own threads
        }
    }

}
