package air.mpj;

import air.channels.Frame;
import air.channels.bootstrap.PeerBootstrap;
import air.channels.bootstrap.WorldSpec;
import air.wire.FrameException;
import air.wire.WireOut;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * One MPJ rank driven by a test over a loopback socket: the test JVM cannot host several MPJ
 * ranks, so each rank runs here and {@link RemoteTransport} forwards the contract suite's calls.
 */
public final class MpjAgent {

    static final byte SEND = 1, WIRE = 2, RECEIVE = 3, CLOSE = 4, EXIT = 5, SEND_WIRE_OUT = 6, DISCARD = 7;
    static final byte OK = 0, FRAME = 1, NONE = 2, ERROR = 3;

    private MpjAgent(){
    }

    public static void main(String[] args) throws Exception {
        int controlPort = Integer.parseInt(args[0]);
        MpjTransport transport = (MpjTransport) PeerBootstrap.joinMpj(WorldSpec.of(args, System.getenv())).transport();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), controlPort)) {
            s.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(s.getInputStream());
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(transport.self());
            out.flush();
            while (true) {
                int id;
                try {
                    id = in.readInt();
                } catch (EOFException e) {
                    break;
                }
                byte op = in.readByte();
                if (op == EXIT) {
                    break;
                }
                int channel = in.readInt();
                int peer = in.readInt();
                long timeoutMs = in.readLong();
                byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                Thread.ofVirtual().start(() -> answer(out, id, () -> {
                    switch (op) {
                        case SEND -> transport.send(peer, channel, ByteBuffer.wrap(bytes));
                        case WIRE -> transport.sendWire(peer, channel, ByteBuffer.wrap(bytes));
                        case SEND_WIRE_OUT -> {
                            WireOut w = new WireOut(bytes.length);
                            for (byte b : bytes) {
                                w.putByte(b);
                            }
                            transport.send(peer, channel, w);
                        }
                        case RECEIVE -> {
                            return transport.receive(channel, Duration.ofMillis(timeoutMs));
                        }
                        case DISCARD -> transport.discard(channel);
                        case CLOSE -> transport.close();
                        default -> throw new IllegalArgumentException("op " + op);
                    }
                    return null;
                }));
            }
        }
        transport.close();
        System.exit(0);
    }

    private interface Call {
        Frame call() throws Exception;
    }

    private static void answer(DataOutputStream out, int id, Call call) {
        byte status;
        byte[] body;
        Frame f = null;
        String error = null;
        int errorPeer = -1;
        try {
            f = call.call();
        } catch (FrameException e) {
            error = "frame:" + e.getMessage();
            errorPeer = e.peer();
        } catch (Exception e) {
            error = e.getClass().getSimpleName() + ":" + e.getMessage();
        }
        synchronized (out) {
            try {
                out.writeInt(id);
                if (error != null) {
                    out.writeByte(ERROR);
                    out.writeInt(errorPeer);
                    out.writeUTF(error);
                } else if (f != null) {
                    out.writeByte(FRAME);
                    out.writeInt(f.peer());
                    out.writeInt(f.channel());
                    ByteBuffer p = f.payload().duplicate();
                    out.writeInt(p.remaining());
                    byte[] b = new byte[p.remaining()];
                    p.get(b);
                    out.write(b);
                } else {
                    out.writeByte(OK);
                }
                out.flush();
            } catch (IOException e) {
                // the test went away
            }
        }
    }
}
