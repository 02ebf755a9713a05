package air.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.JobEvent;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The event channel believes a connection only once it proved which peer it is, and then only
 * about that peer; lines and connections are bounded, and whatever breaks the rules is refused,
 * reported and closed.
 */
class EventServerTest {

    private final List<PeerEvent> events = new ArrayList<>();
    private final List<String> complaints = new ArrayList<>();

    private EventServer server(int peers, long greetingMs) throws IOException {
        return new EventServer(InetAddress.getLoopbackAddress(), peers, greetingMs, e -> {
            synchronized (events) {
                events.add(e);
            }
        }, c -> {
            synchronized (complaints) {
                complaints.add(c);
            }
        });
    }

    private static Socket connect(EventServer server) throws IOException {
        String[] at = server.address().split(":");
        return new Socket(at[0], Integer.parseInt(at[1]));
    }

    private static void send(Socket s, String... lines) {
        try {
            OutputStream out = s.getOutputStream();
            for (String l : lines) {
                out.write((l + "\n").getBytes(StandardCharsets.UTF_8));
            }
            out.flush();
        } catch (IOException e) {
            // the server may have closed it already: what it did is checked by the caller
        }
    }

    /** The server closed {@code s} (an end of stream or a reset), within 10 s. */
    private static void assertClosedByServer(Socket s) throws IOException {
        s.setSoTimeout(10_000);
        InputStream in = s.getInputStream();
        try {
            while (in.read() >= 0) {
                // the server sends nothing; read to the end
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the event channel did not close a connection it should have refused", e);
        } catch (IOException reset) {
            // closed with unread data: a reset is a close too
        }
    }

    private static String started(int peer) {
        return EventLine.encode(new JobEvent.Started("j", peer, 1, 2, 3));
    }

    private List<String> complaints() {
        synchronized (complaints) {
            return List.copyOf(complaints);
        }
    }

    private List<PeerEvent> events() {
        synchronized (events) {
            return List.copyOf(events);
        }
    }

    @Test
    void a_stranger_is_refused_and_reported_and_nothing_it_sends_is_believed() throws Exception {
        try (EventServer server = server(2, EventServer.GREETING_MS)) {
            try (Socket noGreeting = connect(server); Socket wrongToken = connect(server); Socket noSuchPeer = connect(server)) {
                send(noGreeting, started(0));
                send(wrongToken, EventGreeting.line(0, "0".repeat(64)), started(0));
                send(noSuchPeer, EventGreeting.line(7, server.token(1)), started(7));
                assertClosedByServer(noGreeting);
                assertClosedByServer(wrongToken);
                assertClosedByServer(noSuchPeer);
            }
            PeerReporter peer = PeerReporter.of(server.address(), "1", server.token(1));
            peer.onEvent(new JobEvent.Started("j", 1, 1, 2, 3));
            peer.close();
            server.drain(10_000);
            assertThat(events()).extracting(PeerEvent::peer).containsExactly(1);
            assertThat(complaints()).hasSize(3).allMatch(c -> c.startsWith("[launcher] refused a connection to the event channel from /127.0.0.1:"))
                    .anyMatch(c -> c.endsWith("it did not greet as a peer (its first line is not air-events-hello/1)"))
                    .anyMatch(c -> c.endsWith("it claims peer 0 but does not know that peer's token (AIR_EVENTS_TOKEN)"))
                    .anyMatch(c -> c.endsWith("it claims peer 7, not one of the 2 this launcher started"))
                    .noneMatch(c -> c.contains(server.token(0)) || c.contains(server.token(1)));
        }
    }

    @Test
    void a_peer_cannot_speak_for_another_and_an_over_long_line_cuts_it_off() throws Exception {
        try (EventServer server = server(2, EventServer.GREETING_MS)) {
            try (Socket forger = connect(server)) {
                send(forger, EventGreeting.line(0, server.token(0)), started(0), started(1), started(0));
                assertClosedByServer(forger);
            }
            try (Socket longLine = connect(server)) {
                send(longLine, EventGreeting.line(1, server.token(1)), started(1), "x".repeat(EventServer.MAX_LINE_BYTES + 1), started(1));
                assertClosedByServer(longLine);
            }
            try (Socket longGreeting = connect(server)) {
                send(longGreeting, "y".repeat(EventServer.MAX_LINE_BYTES + 1));
                assertClosedByServer(longGreeting);
            }
            server.drain(10_000);
            assertThat(events()).extracting(PeerEvent::peer).containsExactly(0, 1);
            assertThat(complaints()).hasSize(3)
                    .anyMatch(c -> c.endsWith(": peer 0 sent an event of peer 1"))
                    .anyMatch(c -> c.endsWith(": peer 1 sent a line longer than " + EventServer.MAX_LINE_BYTES + " bytes"))
                    .anyMatch(c -> c.endsWith(": its greeting is a line longer than " + EventServer.MAX_LINE_BYTES + " bytes"));
        }
    }

    @Test
    void connections_beyond_the_bound_are_closed_by_the_acceptor_without_a_thread_each_and_the_peer_goes_on() throws Exception {
        try (EventServer server = server(1, 60_000)) {
            PeerReporter peer = PeerReporter.of(server.address(), "0", server.token(0));
            peer.onEvent(new JobEvent.Started("j", 0, 1, 2, 3)); // connected first: one of the served
            List<Socket> silent = new ArrayList<>();
            try {
                for (int i = 0; i < server.maxConnections() - 1; i++) {
                    silent.add(connect(server)); // served: each holds a slot until its greeting deadline
                }
                for (int i = 0; i < 8; i++) {
                    try (Socket extra = connect(server)) {
                        assertClosedByServer(extra);
                    }
                }
                long readers = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("air-launcher-events-")).count();
                assertThat(readers).isLessThanOrEqualTo(server.maxConnections());
                peer.onEvent(new JobEvent.Finished("j", 0, 4, 3));
                assertThat(complaints()).hasSize(8)
                        .allMatch(c -> c.endsWith("too many connections at once (at most " + server.maxConnections() + ")"));
            } finally {
                for (Socket s : silent) {
                    s.close();
                }
            }
            peer.close();
            server.drain(10_000);
            assertThat(events()).extracting(PeerEvent::peer).containsExactly(0, 0);
        }
    }

    @Test
    void a_connection_that_does_not_greet_in_time_is_dropped() throws Exception {
        try (EventServer server = server(1, 200); Socket silent = connect(server)) {
            assertClosedByServer(silent);
            assertThat(complaints()).singleElement().asString().contains("it did not greet within 200 ms");
        }
    }
}
