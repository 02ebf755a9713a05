package air.launcher;

import air.channels.MeshAuth;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The launcher's end of the event channel: a loopback socket (or one on the address of
 * {@link PeerHosts#launcherAddress}) each peer connects to once ({@link PeerReporter}); one reader
 * thread per connection decodes its {@link EventLine}s and hands them on, in the order each peer
 * sent them. {@link #drain} returns once every event of peers that have exited has been handed on.
 *
 * <p>Nothing a connection sends is trusted before it proves which peer it is: its first line,
 * within {@link #GREETING_MS}, must be that peer's {@link EventGreeting} with the token only that
 * peer was given ({@link #token}); a line after that must speak for that peer alone
 * ({@code peer=}). Lines are at most {@link #MAX_LINE_BYTES}; at most one connection per peer
 * and {@link #SPARE} more are served at once, each by one thread, and the acceptor closes any
 * beyond that itself. Whatever breaks these rules is refused, its connection closed and the
 * reason reported to {@code complaints} (the first {@link #REPORTED_REFUSALS}, then a count).
 */
final class EventServer implements AutoCloseable {

    /** The longest line read, in bytes; a job event's line is well under 1 KiB, a failure's reason a few. */
    static final int MAX_LINE_BYTES = 64 * 1024;
    /** How long a connection has to greet. */
    static final long GREETING_MS = MeshAuth.GREETING_TIMEOUT_MS;
    /** Connections served beyond one per peer: the drain probe, strangers waiting to be refused. */
    static final int SPARE = 4;
    /** Refusals reported one by one before they are only counted (a flood must not flood the output too). */
    static final int REPORTED_REFUSALS = 20;

    private final ServerSocket server;
    private final Consumer<PeerEvent> sink;
    private final Consumer<String> complaints;
    private final Thread acceptor;
    private final String[] tokens;
    private final int maxConnections;
    private final long greetingMs;
    private final List<Thread> readers = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    /** Remote ports of the connections accepted so far, served or refused (to know when a probe got through the queue). */
    private final Set<Integer> acceptedPorts = new HashSet<>();
    /** The peers with a proven connection open now. */
    private final Set<Integer> connected = new HashSet<>();
    private int refusals;
    private volatile boolean closed;

    EventServer(int peers, Consumer<PeerEvent> sink, Consumer<String> complaints) throws IOException {
        this(InetAddress.getLoopbackAddress(), peers, sink, complaints);
    }

    /** Listens on a free port of {@code bind} (an address every peer's host reaches) for {@code peers} peers. */
    EventServer(InetAddress bind, int peers, Consumer<PeerEvent> sink, Consumer<String> complaints) throws IOException {
        this(bind, peers, GREETING_MS, sink, complaints);
    }

    /** As above, with {@code greetingMs} for a connection to greet in (tests shorten or lengthen it). */
    EventServer(InetAddress bind, int peers, long greetingMs, Consumer<PeerEvent> sink, Consumer<String> complaints) throws IOException {
        if (peers < 1) {
            throw new IllegalArgumentException("peers must be >= 1, was " + peers);
        }
        this.tokens = new String[peers];
        for (int r = 0; r < peers; r++) {
            tokens[r] = MeshAuth.randomSecret();
        }
        this.maxConnections = peers + SPARE;
        this.greetingMs = greetingMs;
        this.server = new ServerSocket(0, 256, bind);
        this.sink = sink;
        this.complaints = complaints;
        this.acceptor = Thread.ofPlatform().daemon().name("air-launcher-events").start(this::acceptLoop);
    }

    /** What peers are told in {@code AIR_EVENTS}. */
    String address() {
        return server.getInetAddress().getHostAddress() + ":" + server.getLocalPort();
    }

    /** What peer {@code rank} is told in {@code AIR_EVENTS_TOKEN}, and must greet with. */
    String token(int rank) {
        return tokens[rank];
    }

    /** At most this many connections are served at once (one reader thread each). */
    int maxConnections() {
        return maxConnections;
    }

    private void acceptLoop() {
        while (!closed) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    complaints.accept("[launcher] the event channel stopped accepting: " + e.getMessage());
                }
                return;
            }
            synchronized (this) {
                if (closed) {
                    closeQuietly(s);
                    return;
                }
                acceptedPorts.add(s.getPort());
                notifyAll();
                if (sockets.size() >= maxConnections) {
                    refused(s, "too many connections at once (at most " + maxConnections + ")");
                    continue;
                }
                sockets.add(s);
                readers.add(Thread.ofPlatform().daemon().name("air-launcher-events-" + s.getPort()).start(() -> serve(s)));
            }
        }
    }

    private void serve(Socket s) {
        try {
            read(s);
        } finally {
            closeQuietly(s);
            synchronized (this) {
                sockets.remove(s);
                readers.remove(Thread.currentThread());
                notifyAll();
            }
        }
    }

    private void read(Socket s) {
        int rank;
        LineReader in;
        try {
            in = new LineReader(s, MAX_LINE_BYTES);
            String hello = in.readLine(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(greetingMs));
            if (hello == null) {
                return; // closed without a word (the drain probe): nothing to trust, nothing to refuse
            }
            rank = EventGreeting.verify(hello, tokens);
        } catch (IllegalArgumentException e) {
            refused(s, e.getMessage());
            return;
        } catch (LineReader.TooLong e) {
            refused(s, "its greeting is " + e.getMessage());
            return;
        } catch (IOException e) {
            if (!closed) {
                refused(s, "it did not greet within " + greetingMs + " ms (" + e.getMessage() + ")");
            }
            return;
        }
        synchronized (this) {
            if (!connected.add(rank)) {
                refused(s, "peer " + rank + " is connected already");
                return;
            }
        }
        try {
            readEvents(s, in, rank);
        } finally {
            synchronized (this) {
                connected.remove(rank);
            }
        }
    }

    private void readEvents(Socket s, LineReader in, int rank) {
        try {
            String line;
            while ((line = in.readLine(0)) != null) {
                PeerEvent event;
                try {
                    event = EventLine.decode(line);
                } catch (IllegalArgumentException e) {
                    complaints.accept("[launcher] ignoring a malformed event line of peer " + rank + ": " + e.getMessage());
                    continue;
                }
                if (event != null && event.peer() != rank) {
                    refused(s, "peer " + rank + " sent an event of peer " + event.peer());
                    return;
                }
                if (event != null) {
                    sink.accept(event);
                }
            }
        } catch (LineReader.TooLong e) {
            refused(s, "peer " + rank + " sent " + e.getMessage());
        } catch (IOException e) {
            // the peer is gone (or the channel closed): its events end here
        }
    }

    /** Reports the refusal (the first {@link #REPORTED_REFUSALS}), then closes the connection. */
    private void refused(Socket s, String why) {
        int n;
        synchronized (this) {
            n = ++refusals;
        }
        if (n <= REPORTED_REFUSALS) {
            complaints.accept("[launcher] refused a connection to the event channel from " + s.getRemoteSocketAddress() + ": " + why
                    + (n == REPORTED_REFUSALS ? " (further refusals are counted, not reported)" : ""));
        }
        closeQuietly(s);
    }

    /** How many connections were refused so far. */
    synchronized int refusals() {
        return refusals;
    }

    /**
     * Once every peer has exited: waits until each connection they made has been accepted (a
     * probe connection queued behind them gets through) and read to its end, for at most
     * {@code timeoutMs}.
     */
    void drain(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try (Socket probe = new Socket(server.getInetAddress(), server.getLocalPort())) {
            int port = probe.getLocalPort();
            synchronized (this) {
                while (!acceptedPorts.contains(port) && !closed) {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (left <= 0) {
                        complaints.accept("[launcher] the event channel did not drain within " + timeoutMs + " ms");
                        return;
                    }
                    wait(left);
                }
            }
        } catch (IOException e) {
            complaints.accept("[launcher] could not drain the event channel: " + e.getMessage());
            return;
        }
        List<Thread> all;
        synchronized (this) {
            all = List.copyOf(readers);
        }
        for (Thread t : all) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
    }

    @Override
    public void close() {
        List<Thread> all;
        synchronized (this) {
            closed = true;
            closeQuietly(server);
            sockets.forEach(EventServer::closeQuietly);
            all = List.copyOf(readers);
            notifyAll();
        }
        try {
            acceptor.join(2_000);
            for (Thread t : all) {
                t.join(2_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing anyway
        }
    }
}
