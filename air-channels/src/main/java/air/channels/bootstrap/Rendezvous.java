package air.channels.bootstrap;

import air.channels.DeadlineInputStream;
import air.channels.MeshAuth;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PushbackInputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rendezvous niodev needs when started without daemons: every rank connects, says
 * {@code "Sending Info"} and its write port, read port and rank; once all have, each gets the
 * whole table {@code #Peer Information;host@readPort@writePort@rank;...} in rank order. Bound to
 * loopback unless told otherwise. Anything else on the socket — a stranger, garbage, silence past
 * the greeting timeout, a rank already taken — is refused and logged naming the sender, and the
 * rendezvous goes on waiting for the world's ranks until its deadline.
 */
public final class Rendezvous implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Rendezvous.class);

    private final ServerSocket server;
    private final int peers;

    private Rendezvous(ServerSocket server, int peers) {
        this.server = server;
        this.peers = peers;
    }

    /** Listens on {@code bind:port} (port 0: any free one) for {@code peers} ranks. */
    public static Rendezvous listen(InetAddress bind, int port, int peers) throws IOException {
        if (peers < 1) {
            throw new IllegalArgumentException("peers must be >= 1, was " + peers);
        }
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(bind, port), peers);
        return new Rendezvous(s, peers);
    }

    public static Rendezvous onLoopback(int peers) throws IOException {
        return listen(InetAddress.getLoopbackAddress(), 0, peers);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Serves one world: waits up to {@code timeoutMs} for all ranks, then answers them. */
    public void serve(long timeoutMs) throws IOException {
        String[] table = new String[peers];
        List<Socket> sockets = new ArrayList<>();
        long deadline = System.currentTimeMillis() + timeoutMs;
        try {
            while (sockets.size() < peers) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    throw new IOException("rendezvous: only " + sockets.size() + " of " + peers + " rank(s) arrived within " + timeoutMs + " ms");
                }
                server.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
                Socket s;
                try {
                    s = server.accept();
                } catch (SocketTimeoutException e) {
                    continue;
                }
                String refused = greet(s, table);
                if (PROBE.equals(refused)) {
                    LOG.debug("rendezvous: a rank's probe from {} (it waits for the rendezvous before MPI.Init)", s.getRemoteSocketAddress());
                    closeQuietly(s);
                    continue;
                }
                if (refused != null) {
                    // a stranger, garbage or a duplicate rank: refuse that connection alone, the world goes on meeting
                    LOG.warn("rendezvous: refused {}", refused);
                    closeQuietly(s);
                    continue;
                }
                sockets.add(s);
            }
            String answer = "#Peer Information;" + String.join(";", table);
            for (Socket s : sockets) {
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeUTF(answer);
                out.flush();
            }
        } finally {
            for (Socket s : sockets) {
                try {
                    s.shutdownOutput();
                } catch (IOException ignored) {
                    // the rank may have closed first
                }
            }
        }
    }

    /** What {@link #greet} returns for a connection closed before its first byte: a rank probing whether the rendezvous listens. */
    private static final String PROBE = "probe";

    /** Reads one rank's greeting into {@code table}; why it is refused ({@link #PROBE} for a probe), or null. */
    private String greet(Socket s, String[] table) {
        String from = String.valueOf(s.getRemoteSocketAddress());
        try {
            PushbackInputStream raw = new PushbackInputStream(new DeadlineInputStream(s, MeshAuth.GREETING_TIMEOUT_MS), 1);
            int first = raw.read();
            if (first < 0) {
                return PROBE;
            }
            raw.unread(first);
            DataInputStream in = new DataInputStream(raw);
            String hello = in.readUTF();
            int writePort = in.readInt();
            int readPort = in.readInt();
            int rank = in.readInt();
            if (!"Sending Info".equals(hello)) {
                return from + ": greeted with '" + hello + "', not an MPJ niodev rank";
            }
            if (rank < 0 || rank >= peers || table[rank] != null) {
                return from + ": claims rank " + rank + (rank >= 0 && rank < peers ? ", already taken" : ", outside [0, " + peers + ")");
            }
            s.setSoTimeout(0);
            table[rank] = s.getInetAddress().getHostAddress() + "@" + readPort + "@" + writePort + "@" + rank;
            return null;
        } catch (IOException e) {
            return from + ": sent something that is not an MPJ rank's greeting within " + MeshAuth.GREETING_TIMEOUT_MS + " ms (" + e + ")";
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing more to release
        }
    }

    /** Serves on a daemon thread; failures go to {@code onFailure}. */
    public Thread serveInBackground(long timeoutMs, Consumer<IOException> onFailure) {
        return Thread.ofPlatform().daemon().name("air-rendezvous").start(() -> {
            try {
                serve(timeoutMs);
            } catch (IOException e) {
                onFailure.accept(e);
            } finally {
                close();
            }
        });
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // nothing to release
        }
    }
}
