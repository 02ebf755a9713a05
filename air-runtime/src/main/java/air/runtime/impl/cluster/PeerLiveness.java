package air.runtime.impl.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

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
    private final int self;
    private final String advertise;
    private volatile boolean closed;

    /** Listens on {@code bind} (loopback unless AIR_BIND says otherwise); the others connect to {@code advertise}. */
    PeerLiveness(int self, InetAddress bind, String advertise, BiConsumer<Integer, String> onGone) throws IOException {
        this.self = self;
        this.advertise = advertise;
        this.onGone = onGone;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(bind, 0), 64);
    }

    String address() {
        return advertise + ":" + server.getLocalPort();
    }

    /** Connects to every peer of lower rank and accepts those of higher rank. */
    void connect(String[] addresses, long timeoutMs) throws IOException {
        for (int p = 0; p < self; p++) {
            String a = addresses[p];
            int colon = a.lastIndexOf(':');
            Socket s = new Socket();
            s.connect(new InetSocketAddress(a.substring(0, colon), Integer.parseInt(a.substring(colon + 1))), (int) timeoutMs);
            s.getOutputStream().write(self);
            s.getOutputStream().flush();
            watch(p, s);
        }
        server.setSoTimeout((int) timeoutMs);
        for (int k = self + 1; k < addresses.length; k++) {
            Socket s = server.accept();
            int peer = s.getInputStream().read();
            if (peer <= self || peer >= addresses.length) {
                s.close();
                throw new IOException("liveness connection from " + s.getRemoteSocketAddress() + " claims rank " + peer);
            }
            watch(peer, s);
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
