package air.launcher;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The launcher's end of the event channel: a loopback socket (or one on the address of
 * {@link PeerHosts#launcherAddress}) each peer connects to once
 * ({@link PeerReporter}); one reader thread per connection decodes its {@link EventLine}s and hands
 * them on, in the order each peer sent them. {@link #drain} returns once every event of peers that
 * have exited has been handed on.
 */
final class EventServer implements AutoCloseable {

    private final ServerSocket server;
    private final Consumer<PeerEvent> sink;
    private final Consumer<String> complaints;
    private final Thread acceptor;
    private final List<Thread> readers = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    /** Remote ports of the connections accepted so far (to know when a probe got through the queue). */
    private final Set<Integer> acceptedPorts = new HashSet<>();
    private volatile boolean closed;

    EventServer(Consumer<PeerEvent> sink, Consumer<String> complaints) throws IOException {
        this(InetAddress.getLoopbackAddress(), sink, complaints);
    }

    /** Listens on a free port of {@code bind} (an address every peer's host reaches). */
    EventServer(InetAddress bind, Consumer<PeerEvent> sink, Consumer<String> complaints) throws IOException {
        this.server = new ServerSocket(0, 256, bind);
        this.sink = sink;
        this.complaints = complaints;
        this.acceptor = Thread.ofPlatform().daemon().name("air-launcher-events").start(this::acceptLoop);
    }

    /** What peers are told in {@code AIR_EVENTS}. */
    String address() {
        return server.getInetAddress().getHostAddress() + ":" + server.getLocalPort();
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
                sockets.add(s);
                readers.add(Thread.ofPlatform().daemon().name("air-launcher-events-" + s.getPort()).start(() -> read(s)));
                acceptedPorts.add(s.getPort());
                notifyAll();
            }
        }
    }

    private void read(Socket s) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                PeerEvent event;
                try {
                    event = EventLine.decode(line);
                } catch (IllegalArgumentException e) {
                    complaints.accept("[launcher] ignoring a malformed event line: " + e.getMessage());
                    continue;
                }
                if (event != null) {
                    sink.accept(event);
                }
            }
        } catch (IOException e) {
            // the peer is gone (or the channel closed): its events end here
        }
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
