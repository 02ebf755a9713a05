package air.mpj;

import air.channels.Frame;
import air.channels.FrameCodec;
import air.channels.Transport;
import air.wire.FrameException;
import air.wire.WireOut;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/** The test's handle on one {@link MpjAgent}: every call is forwarded and its outcome rethrown here. */
final class RemoteTransport implements Transport {

    private record Reply(byte status, Frame frame, int errorPeer, String error) { }

    private final Socket socket;
    private final int self;
    private final int peers;
    private final DataOutputStream out;
    private final AtomicInteger ids = new AtomicInteger();
    private final ConcurrentHashMap<Integer, CompletableFuture<Reply>> pending = new ConcurrentHashMap<>();
    private volatile boolean closed;

    RemoteTransport(Socket socket, int self, int peers) throws IOException {
        this.socket = socket;
        this.self = self;
        this.peers = peers;
        socket.setTcpNoDelay(true);
        this.out = new DataOutputStream(socket.getOutputStream());
        DataInputStream in = new DataInputStream(socket.getInputStream());
        Thread.ofVirtual().start(() -> readReplies(in));
    }

    private void readReplies(DataInputStream in) {
        try {
            while (true) {
                int id = in.readInt();
                byte status = in.readByte();
                Reply r = switch (status) {
                    case MpjAgent.ERROR -> new Reply(status, null, in.readInt(), in.readUTF());
                    case MpjAgent.FRAME -> {
                        int peer = in.readInt();
                        int channel = in.readInt();
                        byte[] b = new byte[in.readInt()];
                        in.readFully(b);
                        yield new Reply(status, new Frame(peer, channel, ByteBuffer.wrap(b).asReadOnlyBuffer()), -1, null);
                    }
                    default -> new Reply(status, null, -1, null);
                };
                pending.remove(id).complete(r);
            }
        } catch (IOException e) {
            pending.values().forEach(f -> f.completeExceptionally(new IllegalStateException("agent " + self + " is gone (closed)")));
        }
    }

    private Frame call(byte op, int peer, int channel, long timeoutMs, ByteBuffer bytes) throws InterruptedException {
        int id = ids.incrementAndGet();
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        pending.put(id, reply);
        byte[] b = new byte[bytes == null ? 0 : bytes.remaining()];
        if (bytes != null) {
            bytes.duplicate().get(b);
        }
        try {
            synchronized (out) {
                out.writeInt(id);
                out.writeByte(op);
                out.writeInt(channel);
                out.writeInt(peer);
                out.writeLong(timeoutMs);
                out.writeInt(b.length);
                out.write(b);
                out.flush();
            }
            Reply r = reply.get(timeoutMs + 30_000, TimeUnit.MILLISECONDS);
            if (r.status == MpjAgent.ERROR) {
                throw rethrow(r);
            }
            return r.frame;
        } catch (IOException | TimeoutException e) {
            throw new IllegalStateException("agent " + self + " did not answer (closed?): " + e, e);
        } catch (ExecutionException e) {
            throw (RuntimeException) e.getCause();
        }
    }

    private static RuntimeException rethrow(Reply r) {
        String e = r.error;
        if (e.startsWith("frame:")) {
            String message = e.substring("frame:".length());
            return new FrameException(r.errorPeer, message.replaceFirst("^malformed frame from peer \\d+: ", ""));
        }
        String kind = e.substring(0, e.indexOf(':'));
        String message = e.substring(e.indexOf(':') + 1);
        return switch (kind) {
            case "IllegalArgumentException" -> new IllegalArgumentException(message);
            default -> new IllegalStateException(message);
        };
    }

    @Override
    public int self() {
        return self;
    }

    @Override
    public int peers() {
        return peers;
    }

    @Override
    public void send(int peer, int channel, ByteBuffer payload) {
        try {
            call(MpjAgent.SEND, peer, channel, 0, payload);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void send(int peer, int channel, WireOut payload) {
        try {
            // frame locally as a transport would (the WireOut is the transport's now), forward the payload
            ByteBuffer frame = new FrameCodec().seal(channel, payload);
            call(MpjAgent.SEND_WIRE_OUT, peer, channel, 0, frame.position(FrameCodec.HEADER_BYTES));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    void sendWire(int peer, int channel, ByteBuffer wire) {
        try {
            call(MpjAgent.WIRE, peer, channel, 0, wire);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Frame receive(int channel, Duration timeout) throws InterruptedException {
        return call(MpjAgent.RECEIVE, -1, channel, timeout.toMillis(), null);
    }

    @Override
    public void discard(int channel) {
        try {
            call(MpjAgent.DISCARD, -1, channel, 0, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            call(MpjAgent.CLOSE, -1, 0, 0, null);
        } catch (RuntimeException | InterruptedException e) {
            // the agent may already be gone
        }
    }

    /** Asks the agent to exit. */
    void exit() {
        try {
            synchronized (out) {
                out.writeInt(0);
                out.writeByte(MpjAgent.EXIT);
                out.flush();
            }
            socket.close();
        } catch (IOException e) {
            // already gone
        }
    }
}
