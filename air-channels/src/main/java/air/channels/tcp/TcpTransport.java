package air.channels.tcp;

import air.channels.Channels;
import air.channels.Frame;
import air.channels.FrameCodec;
import air.channels.MeshAuth;
import air.channels.Transport;
import air.channels.bootstrap.Rendezvous;
import air.channels.impl.LinkFailures;
import air.channels.impl.ParkingQueue;
import air.wire.FrameException;
import air.wire.WireOut;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * AIR's own transport: plain TCP between every pair of peers, three connections per pair (control
 * and heartbeats on one, shuffle data on another, replication's state copies on a third), so that
 * a heartbeat never queues behind data or behind a snapshot of a peer's whole state. Unlike
 * MPJ Express niodev, the death of one peer breaks only the links to that peer: the others keep
 * talking, which is what replication needs to take over without a restart.
 *
 * <p>On the socket each frame is {@code [channel int][length int][frame bytes]}, the frame in
 * {@link FrameCodec}'s form. A frame that fails validation is handed to the receiver of its channel
 * as a {@link FrameException} naming the sender, and the link stays in step; an outer length that
 * cannot be a frame means the stream is garbage, so that link is dropped with the same error.
 * Peers find each other through the rendezvous MPJ's daemon-less ranks use ({@code air.channels.bootstrap.Rendezvous}).
 *
 * <p>{@link #close} says goodbye: after its last frame each lane carries a goodbye ({@code [-1][0]})
 * and then the end of the stream. A peer that reads a goodbye knows the sender <em>left</em>: it
 * tells the departure listeners, not those of link failures, ends its own side of that lane and
 * takes the end of the sender's connections that follows for what it is. Without it, the end of a
 * finished peer's data lane, read before its heartbeat goodbye, looked like a broken link and got
 * it suspected while the others were still finishing. The closing side reads on until the other
 * side has ended its half too (up to the close's deadline), so that no unread byte turns its
 * close into a reset.
 *
 * <p>{@link #delivered} puts a delivery mark ({@code [-2][8][number]}) on the data lane after
 * everything queued before it; the receiving loop, having handed every frame before it to its
 * channel's queue, answers on the control lane ({@code [-3][8][number]}), and the answer completes
 * every wait up to that number. The marks are the lane's own, like the goodbye: no channel sees them.
 */
public final class TcpTransport implements Transport {

    /** What the mesh's greetings prove membership of. */
    static final String PURPOSE = "air-tcp-mesh";
    private static final Logger LOG = LoggerFactory.getLogger(TcpTransport.class);
    static final int HELLO = 0x41495254; // "AIRT"
    private static final int SEND_QUEUE = 256;
    static final int RECEIVE_QUEUE = 256;
    /**
     * The bytes a lane's send queue, and a channel's receive queue, hold at most besides their count
     * of frames: 256 frames of up to 64 MiB each would be 16 GiB. A full receive queue holds back its
     * lane's receive loop, and TCP's window then the sender.
     */
    static final long QUEUE_BYTES = 64L << 20;
    /** Lanes per pair of peers: 0 control and heartbeats, 1 shuffle data, 2 replica traffic. */
    static final int LANES = 3;
    private static final int CONTROL_LANE = 0, DATA_LANE = 1, REPLICA_LANE = 2;
    /** The channel field of a delivery mark on the data lane, and of its answer on the control lane; each carries a number. */
    private static final int DELIVERY_MARK = -2, DELIVERY_ANSWER = -3;
    /** The channel field of a goodbye (its length field is 0): the sender closed its transport, nothing follows on this lane. */
    private static final int GOODBYE = -1;
    /** How long {@link #close} waits for queued sends to go out and for the peers to end their side of each connection. */
    private static final long CLOSE_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** What a receiver hands to {@link #receive}: a frame or the error it found. */
    private record Arrival(Frame frame, RuntimeException error) {

        long bytes() {
            return frame == null ? 0 : frame.payload().remaining();
        }
    }

    /** One frame's bytes for the wire. */
    private record Outgoing(int channel, byte[] bytes, int offset, int length) { }

    private final int self;
    private final int peers;
    private final FrameCodec codec;
    private final Socket[][] sockets; // [peer][lane]
    private final ParkingQueue<Outgoing>[][] outbound;
    private final ConcurrentHashMap<Integer, ParkingQueue<Arrival>> inbound = new ConcurrentHashMap<>();
    private final LinkFailures links;
    private final CopyOnWriteArrayList<Thread> senders = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<Thread> receivers = new CopyOnWriteArrayList<>();
    /** Per peer: the number of the last delivery mark sent, and the waits on marks not yet answered. */
    private final AtomicLong[] marks;
    private final ConcurrentSkipListMap<Long, CompletableFuture<Void>>[] awaiting;
    private volatile boolean closed;
    /** {@link #crash}: closed without a goodbye. Set before {@link #closed}. */
    private volatile boolean crashed;

    @SuppressWarnings({"unchecked", "rawtypes"}) // arrays of generic queues and maps
    private TcpTransport(int self, int peers, FrameCodec codec, Socket[][] sockets) {
        this.self = self;
        this.peers = peers;
        this.codec = codec;
        this.sockets = sockets;
        this.links = new LinkFailures(peers);
        this.outbound = new ParkingQueue[peers][LANES];
        this.marks = new AtomicLong[peers];
        this.awaiting = new ConcurrentSkipListMap[peers];
        for (int p = 0; p < peers; p++) {
            marks[p] = new AtomicLong();
            awaiting[p] = new ConcurrentSkipListMap<>();
            if (p == self) {
                continue;
            }
            for (int lane = 0; lane < LANES; lane++) {
                outbound[p][lane] = new ParkingQueue<>(SEND_QUEUE, QUEUE_BYTES, Outgoing::length);
                int peer = p;
                int l = lane;
                Thread s = Thread.ofPlatform().daemon().name("air-tcp-send-" + p + (lane == 0 ? "-control" : "-data"))
                        .unstarted(() -> sendLoop(peer, l));
                senders.add(s);
                s.start();
                receivers.add(Thread.ofPlatform().daemon().name("air-tcp-recv-" + p + (lane == 0 ? "-control" : "-data"))
                        .start(() -> receiveLoop(peer, l)));
            }
        }
    }

    /**
     * Joins a world of {@code peers}: listens on {@code bind}, learns every peer's address from the
     * rendezvous at {@code rendezvous}, and connects the mesh (each peer dials those of lower rank).
     */
    public static TcpTransport start(int self, int peers, InetSocketAddress rendezvous, InetAddress bind, FrameCodec codec,
                                     long timeoutMs) throws IOException {
        return start(self, peers, rendezvous, bind, codec, MeshAuth.NONE, timeoutMs);
    }

    /**
     * {@link #start(int, int, InetSocketAddress, InetAddress, FrameCodec, long)} where every mesh
     * connection proves it comes from a member ({@link MeshAuth}); a connection that does not is
     * refused, logged, and the mesh goes on accepting until its deadline.
     */
    public static TcpTransport start(int self, int peers, InetSocketAddress rendezvous, InetAddress bind, FrameCodec codec, MeshAuth auth,
                                     long timeoutMs) throws IOException {
        if (peers < 1 || self < 0 || self >= peers) {
            throw new IllegalArgumentException("rank must be in [0, peers) and peers >= 1, were " + self + " and " + peers);
        }
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress(bind, 0), 2 * peers);
            String[] addresses = exchangeAddresses(self, peers, rendezvous, server, timeoutMs);
            Socket[][] sockets = new Socket[peers][LANES];
            try {
                for (int p = 0; p < self; p++) {
                    for (int lane = 0; lane < LANES; lane++) {
                        sockets[p][lane] = dial(addresses[p], self, lane, auth, timeoutMs);
                    }
                }
                long deadline = System.currentTimeMillis() + timeoutMs;
                int needed = (peers - 1 - self) * LANES;
                for (int accepted = 0; accepted < needed; ) {
                    long left = deadline - System.currentTimeMillis();
                    if (left <= 0) {
                        throw new IOException("peer " + self + ": not every peer of higher rank connected within " + timeoutMs + " ms");
                    }
                    server.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
                    if (accept(server, self, peers, sockets, auth)) {
                        accepted++;
                    }
                }
            } catch (IOException | RuntimeException e) {
                closeAll(sockets);
                throw e;
            }
            TcpTransport t = new TcpTransport(self, peers, codec, sockets);
            LOG.info("peer {} of {} joined over TCP ({})", self, peers, server.getLocalSocketAddress());
            return t;
        }
    }

    /**
     * A whole world of {@code peers} in this JVM over loopback (tests; several peers in one
     * process): serves a rendezvous and starts every peer at once, rank {@code i} at index {@code i}.
     */
    public static List<TcpTransport> onLoopback(int peers, long timeoutMs) throws IOException {
        Rendezvous rv = Rendezvous.onLoopback(peers);
        rv.serveInBackground(timeoutMs, e -> LOG.warn("rendezvous: {}", e.getMessage()));
        InetSocketAddress at = new InetSocketAddress(InetAddress.getLoopbackAddress(), rv.port());
        List<CompletableFuture<TcpTransport>> starting = new ArrayList<>();
        for (int r = 0; r < peers; r++) {
            int rank = r;
            starting.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return start(rank, peers, at, InetAddress.getLoopbackAddress(), new FrameCodec(), timeoutMs);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, task -> Thread.ofVirtual().name("air-tcp-start-" + rank).start(task))); // each blocks until all have met
        }
        List<TcpTransport> net = new ArrayList<>();
        try {
            for (CompletableFuture<TcpTransport> f : starting) {
                net.add(f.join());
            }
        } catch (CompletionException e) {
            net.forEach(TcpTransport::close);
            throw new IOException("a loopback world of " + peers + " peers did not connect: " + e.getCause().getMessage(), e.getCause());
        }
        return net;
    }

    /** The rendezvous speaks MPJ niodev's greeting: "Sending Info", two ports and the rank; answers the table. */
    private static String[] exchangeAddresses(int self, int peers, InetSocketAddress rendezvous, ServerSocket server, long timeoutMs)
            throws IOException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(rendezvous, (int) Math.min(Integer.MAX_VALUE, timeoutMs));
                s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMs));
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeUTF("Sending Info");
                out.writeInt(server.getLocalPort());
                out.writeInt(server.getLocalPort());
                out.writeInt(self);
                out.flush();
                String table = new DataInputStream(s.getInputStream()).readUTF();
                return parseTable(table, peers, server.getInetAddress().getHostAddress());
            } catch (ConnectException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IOException("peer " + self + ": no rendezvous at " + rendezvous + " within " + timeoutMs + " ms", e);
                }
                LockSupport.parkNanos(50_000_000L); // a retry timer: the rendezvous may start later
            }
        }
    }

    private static String[] parseTable(String table, int peers, String fallbackHost) throws IOException {
        String prefix = "#Peer Information;";
        if (!table.startsWith(prefix)) {
            throw new IOException("the rendezvous answered '" + table + "', not a peer table");
        }
        String[] rows = table.substring(prefix.length()).split(";");
        if (rows.length != peers) {
            throw new IOException("the rendezvous knows " + rows.length + " peer(s), this peer expects " + peers);
        }
        String[] addresses = new String[peers];
        for (String row : rows) {
            String[] f = row.split("@");
            if (f.length != 4) {
                throw new IOException("bad row '" + row + "' in the rendezvous table");
            }
            int rank = Integer.parseInt(f[3]);
            String host = f[0].isEmpty() ? fallbackHost : f[0];
            addresses[rank] = host + ":" + f[1];
        }
        return addresses;
    }

    private static Socket dial(String address, int self, int lane, MeshAuth auth, long timeoutMs) throws IOException {
        int colon = address.lastIndexOf(':');
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))),
                (int) Math.min(Integer.MAX_VALUE, timeoutMs));
        try {
            auth.dial(s, PURPOSE, HELLO, self, lane, timeoutMs);
        } catch (IOException e) {
            s.close();
            throw new IOException("peer " + self + " could not greet the peer at " + address + ": " + e.getMessage(), e);
        }
        return s;
    }

    /** Accepts one connection: true when it is a peer's (of higher rank, a lane not yet connected); a stranger is refused and logged. */
    private static boolean accept(ServerSocket server, int self, int peers, Socket[][] sockets, MeshAuth auth) throws IOException {
        Socket s;
        try {
            s = server.accept();
        } catch (SocketTimeoutException e) {
            return false; // the caller checks its deadline
        }
        try {
            s.setTcpNoDelay(true);
            MeshAuth.Hello h = auth.accept(s, PURPOSE, HELLO);
            int rank = h.rank();
            int lane = h.lane();
            if (rank <= self || rank >= peers || lane < 0 || lane >= LANES || sockets[rank][lane] != null) {
                throw new IOException(String.format("%s is not a peer of higher rank with a free lane (rank %d, lane %d)",
                        s.getRemoteSocketAddress(), rank, lane));
            }
            auth.confirm(s, PURPOSE, h);
            sockets[rank][lane] = s;
            return true;
        } catch (IOException e) {
            LOG.warn("peer {}: refused a connection to the TCP mesh: {}", self, e.getMessage());
            s.close();
            return false;
        }
    }

    private static void closeAll(Socket[][] sockets) {
        for (Socket[] pair : sockets) {
            for (Socket s : pair) {
                if (s != null) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // nothing more to release
                    }
                }
            }
        }
    }

    @Override
    public int self() {
        return self;
    }

    @Override
    public int peers() {
        return peers;
    }

    /** One peer's death breaks only the links to it. */
    @Override
    public boolean survivesPeerLoss() {
        return true;
    }

    @Override
    public void send(int peer, int channel, ByteBuffer payload) {
        checkPeer(peer);
        byte[] frame = codec.encode(channel, payload).array();
        enqueue(peer, new Outgoing(channel, frame, 0, frame.length));
    }

    @Override
    public void send(int peer, int channel, WireOut payload) {
        checkPeer(peer);
        ByteBuffer frame = codec.seal(channel, payload);
        enqueue(peer, new Outgoing(channel, frame.array(), frame.arrayOffset(), frame.limit()));
    }

    /** Puts raw bytes on the wire as if they were a frame: for tests of the receiver's validation. */
    public void sendWire(int peer, int channel, ByteBuffer wire) {
        checkPeer(peer);
        byte[] bytes = new byte[wire.remaining()];
        wire.duplicate().get(bytes);
        enqueue(peer, new Outgoing(channel, bytes, 0, bytes.length));
    }

    /** Puts bytes on a lane's socket with no framing at all: for tests of a garbled stream. */
    public void sendWireRaw(int peer, int lane, byte[] bytes) {
        checkPeer(peer);
        try {
            synchronized (sockets[peer][lane]) {
                // one stream for both calls: the receiver may drop the link (and this side close the socket) right after the write
                OutputStream out = sockets[peer][lane].getOutputStream();
                out.write(bytes);
                out.flush();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void enqueue(int peer, Outgoing o) {
        checkOpen();
        links.requireIntact(peer);
        outbound[peer][laneOf(o.channel)].offer(o, () -> closed || links.isBroken(peer),
                "transport of peer " + self + " is closed or its link to peer " + peer + " broke");
    }

    private static int laneOf(int channel) {
        return channel == Channels.REPLICA ? REPLICA_LANE : channel >= Channels.DATA_BASE || channel == DELIVERY_MARK ? DATA_LANE : CONTROL_LANE;
    }

    /**
     * A delivery mark after every data frame queued for {@code peer} so far: the wait completes when
     * the peer answers it, once it has handed every frame before it to its channels' queues.
     */
    @Override
    public CompletableFuture<Void> delivered(int peer) {
        checkPeer(peer);
        CompletableFuture<Void> answered = new CompletableFuture<>();
        long mark = marks[peer].incrementAndGet();
        awaiting[peer].put(mark, answered); // before the checks: a link that breaks after them fails it (failDeliveries)
        try {
            enqueue(peer, new Outgoing(DELIVERY_MARK, numbered(mark), 0, Long.BYTES));
        } catch (IllegalStateException e) {
            awaiting[peer].remove(mark);
            answered.completeExceptionally(e);
        }
        return answered;
    }

    private static byte[] numbered(long mark) {
        return ByteBuffer.allocate(Long.BYTES).putLong(mark).array();
    }

    /** A delivery mark or its answer read from {@code peer}'s {@code lane}: true when it was one (consumed). */
    private boolean deliveryMark(int peer, int lane, int channel, int length, DataInputStream in) throws IOException {
        if (length != Long.BYTES || !(channel == DELIVERY_MARK && lane == DATA_LANE || channel == DELIVERY_ANSWER && lane == CONTROL_LANE)) {
            return false;
        }
        long mark = in.readLong();
        if (channel == DELIVERY_MARK) {
            try {
                enqueue(peer, new Outgoing(DELIVERY_ANSWER, numbered(mark), 0, Long.BYTES));
            } catch (IllegalStateException e) {
                // this transport closed or the link broke: the sender's wait fails on its side of the link
            }
        } else if (mark > marks[peer].get()) {
            deliver(Channels.CONTROL, new Arrival(null, new FrameException(peer, "answers delivery mark " + mark + ", but only "
                    + marks[peer].get() + " were sent to it")));
        } else {
            Map<Long, CompletableFuture<Void>> done = awaiting[peer].headMap(mark, true);
            done.values().forEach(f -> f.complete(null));
            done.clear();
        }
        return true;
    }

    /** The waits for delivery to {@code peer} end: the link broke, the peer left or this transport closed. */
    private void failDeliveries(int peer, String why) {
        Map.Entry<Long, CompletableFuture<Void>> e;
        while ((e = awaiting[peer].pollFirstEntry()) != null) {
            e.getValue().completeExceptionally(new IllegalStateException("delivery to peer " + peer + " not confirmed: " + why));
        }
    }

    private void failAllDeliveries(String why) {
        for (int p = 0; p < peers; p++) {
            failDeliveries(p, why);
        }
    }

    private void sendLoop(int peer, int lane) {
        ParkingQueue<Outgoing> queue = outbound[peer][lane];
        try {
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(sockets[peer][lane].getOutputStream(), 64 * 1024));
            while (!closed || queue.size() > 0) {
                Outgoing o = queue.poll(TimeUnit.MILLISECONDS.toNanos(100), () -> closed && queue.size() == 0);
                if (o == null) {
                    continue;
                }
                out.writeInt(o.channel);
                out.writeInt(o.length);
                out.write(o.bytes, o.offset, o.length);
                if (queue.size() == 0) {
                    out.flush();
                }
            }
            if (!crashed) { // only a close ends the loop: this peer leaves, the peer must not take the end of stream for a failure
                out.writeInt(GOODBYE);
                out.writeInt(0);
            }
            out.flush();
        } catch (IOException | InterruptedException e) {
            if (!closed) {
                broken(peer, e);
            }
        } finally {
            if (closed) {
                try {
                    sockets[peer][lane].shutdownOutput();
                } catch (IOException ignored) {
                    // the peer may be gone already
                }
            }
        }
    }

    private void receiveLoop(int peer, int lane) {
        boolean saidGoodbye = false;
        try {
            DataInputStream in = new DataInputStream(new BufferedInputStream(sockets[peer][lane].getInputStream(), 64 * 1024));
            while (true) {
                int channel;
                try {
                    channel = in.readInt();
                } catch (EOFException e) {
                    if (saidGoodbye) {
                        closeQuietly(sockets[peer][lane]); // both sides have ended this lane
                    } else if (!closed) {
                        broken(peer, new EOFException("peer " + peer + " closed the connection")); // quiet if it left on another lane
                    }
                    return;
                }
                int length = in.readInt();
                if (channel == GOODBYE && length == 0) {
                    saidGoodbye = true;
                    left(peer, lane);
                    continue; // on to the end of the stream, which follows
                }
                if (deliveryMark(peer, lane, channel, length, in)) {
                    continue;
                }
                if (channel < 0 || channel > 0xFFFF || laneOf(channel) != lane || length < FrameCodec.HEADER_BYTES
                        || length > FrameCodec.HEADER_BYTES + codec.maxPayload()) {
                    FrameException garbage = new FrameException(peer, "the stream is not AIR frames (channel " + channel + ", length "
                            + length + "): dropping the link");
                    deliver(Channels.CONTROL, new Arrival(null, garbage)); // the channel field is garbage too
                    broken(peer, garbage);
                    return;
                }
                byte[] bytes = new byte[length];
                in.readFully(bytes);
                Arrival a;
                try {
                    Frame f = codec.decode(peer, ByteBuffer.wrap(bytes));
                    a = f.channel() == channel ? new Arrival(f, null)
                            : new Arrival(null, new FrameException(peer, "frame names channel " + f.channel() + " but came as channel " + channel));
                } catch (FrameException e) {
                    a = new Arrival(null, e);
                }
                deliver(channel, a);
            }
        } catch (IOException e) {
            if (!closed) {
                broken(peer, e);
            }
        } catch (IllegalStateException e) {
            // closed while handing over
        }
    }

    /**
     * {@code peer} said goodbye on {@code lane}: it left (the first lane to say so tells the
     * departure listeners) and this side ends its half of the lane, so that the leaving peer's
     * close reads to the end of the stream and closes cleanly.
     */
    private void left(int peer, int lane) {
        // the departure first: a send on this lane that fails once its output is shut must find the peer gone, not a broken link
        boolean first = links.depart(peer);
        try {
            sockets[peer][lane].shutdownOutput();
        } catch (IOException ignored) {
            // already ended (this peer is closing too) or gone: nothing to end
        }
        if (first) {
            wakeSenders(peer);
            failDeliveries(peer, "it left");
            LOG.debug("peer {} left", peer);
        }
    }

    /** Hands an arrival to its channel's receiver; once closed, drops it (the receive loop reads on to the end of the stream). */
    private void deliver(int channel, Arrival a) {
        if (!closed) {
            try {
                inboundOf(channel).offer(a, () -> closed, "closed");
            } catch (IllegalStateException e) {
                // closed while waiting for room: dropped as every later arrival is
            }
        }
    }

    private ParkingQueue<Arrival> inboundOf(int channel) {
        return inbound.computeIfAbsent(channel, c -> new ParkingQueue<>(RECEIVE_QUEUE, QUEUE_BYTES, Arrival::bytes));
    }

    @Override
    public Frame receive(int channel, Duration timeout) throws InterruptedException {
        checkOpen();
        Arrival a = inboundOf(channel).poll(timeout.toNanos(), () -> closed);
        checkOpen();
        if (a == null) {
            return null;
        }
        if (a.error != null) {
            throw a.error;
        }
        return a.frame;
    }

    /** The bytes of the frames received on {@code channel} and not yet taken: for tests of the bound. */
    long queuedBytes(int channel) {
        ParkingQueue<Arrival> q = inbound.get(channel);
        return q == null ? 0 : q.bytes();
    }

    /**
     * Drops the frames received on {@code channel} and not taken; a data lane's receive loop waiting
     * for room in that queue (which holds back every data channel of its peer) goes on.
     */
    @Override
    public void discard(int channel) {
        ParkingQueue<Arrival> q = inbound.get(channel);
        if (q != null) {
            q.clear();
        }
    }

    @Override
    public void onLinkFailure(BiConsumer<Integer, Throwable> listener) {
        links.listen(listener);
    }

    @Override
    public void onDeparture(IntConsumer listener) {
        links.listenDepartures(listener);
    }

    @Override
    public void markLost(int peer, String why) {
        checkPeer(peer);
        if (links.mark(peer, new IllegalStateException("peer " + peer + " lost: " + why))) {
            wakeSenders(peer);
            failDeliveries(peer, "lost: " + why);
            closePeer(peer);
        }
    }

    /** Callers blocked sending to {@code peer} re-check and find the link broken. */
    private void wakeSenders(int peer) {
        for (ParkingQueue<Outgoing> q : outbound[peer]) {
            q.wakeAll();
        }
    }

    private void broken(int peer, Throwable t) {
        if (!links.mark(peer, t)) {
            return;
        }
        wakeSenders(peer);
        failDeliveries(peer, "the link broke (" + t + ")");
        if (t instanceof EOFException) {
            LOG.info("peer {} closed its connection", peer);
        } else {
            LOG.warn("link to peer {} broke: {}", peer, t.toString());
        }
        closePeer(peer);
        links.tell(peer, t);
    }

    private void closePeer(int peer) {
        for (Socket s : sockets[peer]) {
            closeQuietly(s);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing more to release
        }
    }

    private void checkPeer(int peer) {
        LinkFailures.checkPeer(peer, peers, self);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("transport of peer " + self + " is closed");
        }
    }

    /**
     * Flushes queued sends and says goodbye on every lane, waits for each peer to end its side in
     * answer (all within 5 s), then closes every connection; blocked receivers wake up with an error.
     * The others hear that this peer left, not that its links broke.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        inbound.values().forEach(ParkingQueue::wakeAll);
        failAllDeliveries("this transport closed");
        long deadline = System.nanoTime() + CLOSE_NANOS;
        if (joinAll(senders, deadline)) {
            joinAll(receivers, deadline); // each ends at its peer's end of stream: nothing unread is left to reset the connection
        }
        closeAll(sockets);
    }

    /** Joins these threads (not the caller) until the deadline; false if interrupted meanwhile (the interrupt is kept). */
    private static boolean joinAll(List<Thread> threads, long deadline) {
        for (Thread t : threads) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return true;
            }
            if (t == Thread.currentThread()) {
                continue; // a listener on a receiver's thread that closes the transport
            }
            try {
                t.join(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** Drops every connection at once without a flush, as a killed process would: for tests of peer loss. */
    public void crash() {
        crashed = true; // first: no sender may say goodbye on its way out
        closed = true;
        inbound.values().forEach(ParkingQueue::wakeAll);
        failAllDeliveries("this peer crashed");
        closeAll(sockets);
    }
}
