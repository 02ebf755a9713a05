package air.runtime.impl.cluster;

import air.channels.MeshAuth;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One plain TCP connection per pair of peers that carries nothing but a goodbye: the operating
 * system closes it the moment a peer's process dies, so the survivors learn at once, and exactly,
 * which peer it was (when one MPJ rank dies, niodev breaks the links to every peer, so MPJ's errors
 * cannot say who died). A connection that ends without a goodbye means the peer is gone.
 */
final class PeerLiveness implements AutoCloseable {

    private static final int BYE = 0x42;

    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final BiConsumer<Integer, String> onGone;
    private static final Logger LOG = LoggerFactory.getLogger(PeerLiveness.class);
    /** What the liveness greetings prove membership of, and their magic number ("AIRL"). */
    private static final String PURPOSE = "air-liveness";
    private static final int MAGIC = 0x4149524c;
    private final int self;
    private final String advertise;
    private final MeshAuth auth;
    private volatile boolean closed;

    /** Listens on {@code bind} (loopback unless AIR_BIND says otherwise); the others connect to {@code advertise}. */
    PeerLiveness(int self, InetAddress bind, String advertise, MeshAuth auth, BiConsumer<Integer, String> onGone) throws IOException {
        this.self = self;
        this.auth = auth;
        this.advertise = advertise;
        this.onGone = onGone;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(bind, 0), 64);
    }

    String address() {
        return advertise + ":" + server.getLocalPort();
    }

    /**
     * Connects to every peer of lower rank and accepts those of higher rank. Each connection greets
     * with {@link MeshAuth} (a nonce and a proof of the world's secret); a stranger, a silent
     * connection, a rank outside the world or one already connected is refused and logged, and the
     * mesh goes on accepting until its deadline.
     */
    void connect(String[] addresses, long timeoutMs) throws IOException {
        for (int p = 0; p < self; p++) {
            String a = addresses[p];
            int colon = a.lastIndexOf(':');
            Socket s = new Socket();
            s.connect(new InetSocketAddress(a.substring(0, colon), Integer.parseInt(a.substring(colon + 1))), (int) timeoutMs);
            try {
                auth.dial(s, PURPOSE, MAGIC, self, 0, timeoutMs);
            } catch (IOException e) {
                s.close();
                throw new IOException("peer " + self + " could not greet peer " + p + "'s liveness port at " + a + ": " + e.getMessage(), e);
            }
            watch(p, s);
        }
        long deadline = System.currentTimeMillis() + timeoutMs;
        boolean[] connected = new boolean[addresses.length];
        for (int accepted = 0; accepted < addresses.length - 1 - self; ) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                throw new IOException("peer " + self + ": not every peer of higher rank connected its liveness connection within "
                        + timeoutMs + " ms");
            }
            server.setSoTimeout((int) left);
            Socket s;
            try {
                s = server.accept();
            } catch (SocketTimeoutException e) {
                continue;
            }
            try {
                MeshAuth.Hello hello = auth.accept(s, PURPOSE, MAGIC);
                int peer = hello.rank();
                if (peer <= self || peer >= addresses.length || connected[peer]) {
                    throw new IOException(s.getRemoteSocketAddress() + " claims rank " + peer + (peer > self && peer < addresses.length
                            ? ", already connected" : ", not a peer of higher rank in a world of " + addresses.length));
                }
                auth.confirm(s, PURPOSE, hello);
                connected[peer] = true;
                accepted++;
                watch(peer, s);
            } catch (IOException e) {
                LOG.warn("peer {}: refused a liveness connection: {}", self, e.getMessage());
                s.close();
            }
        }
    }

    private void watch(int peer, Socket s) {
        sockets.add(s);
        Thread.ofPlatform().daemon().name("air-liveness-" + peer).start(() -> {
            try (InputStream in = s.getInputStream()) {
                int b = in.read();
                if (b == BYE) {
                    return;
                }
            } catch (IOException e) {
                // connection reset: the process is gone
            }
            if (!closed) {
                onGone.accept(peer, "its process is gone (liveness connection closed without a goodbye)");
            }
        });
    }

    @Override
    public void close() {
        closed = true;
        for (Socket s : sockets) {
            try (OutputStream out = s.getOutputStream()) {
                out.write(BYE);
                out.flush();
            } catch (IOException ignored) {
                // the peer is already gone
            }
            try {
                s.close();
            } catch (IOException ignored) {
                // nothing more to release
            }
        }
        try {
            server.close();
        } catch (IOException ignored) {
            // nothing more to release
        }
    }
}
