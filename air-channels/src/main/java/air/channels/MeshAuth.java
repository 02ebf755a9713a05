package air.channels;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How a connection between AIR's own peers proves it comes from a member of the world (the TCP
 * mesh, the liveness mesh): the accepting side sends a fresh 16-byte nonce, the dialing side
 * answers with its rank, its lane and an HMAC-SHA256 over the nonce, the rank, the lane and the
 * mesh's purpose, keyed with the world's shared secret ({@code AIR_SECRET}, or the file
 * {@code AIR_SECRET_FILE} names). A wrong proof, a wrong magic number or silence past the
 * greeting timeout refuses that connection alone, with the reason; the world goes on accepting.
 * Without a secret the proof is empty and only the greeting's form is checked (loopback-only
 * worlds, tests). The authentication is mutual: the dialer sends a nonce of its own after its
 * proof, and the acceptor answers a greeting it takes ({@link #confirm}) with one byte and its own
 * HMAC over that nonce (and the acceptor's role), so a stranger listening where a peer should be —
 * a wrong address from a forged rendezvous table, a squatted port — is refused by the dialer,
 * naming it. A refused dialer sees the connection close instead and says so. MPJ Express's own
 * connections and the niodev rendezvous protocol cannot carry a proof: see docs/operations.md,
 * Security. Other uses of the secret get keys of their own, derived from it ({@link #derive}).
 */
public final class MeshAuth {

    public static final String SECRET = "AIR_SECRET";
    public static final String SECRET_FILE = "AIR_SECRET_FILE";
    /**
     * Set ({@code 1}) by a launcher beside a secret it made for one run alone: the mesh takes it as
     * any other, but nothing that a later run must check (checkpoint files) can be signed under it.
     */
    public static final String SECRET_PER_RUN = "AIR_SECRET_PER_RUN";
    /** How long an accepted connection has to greet. */
    public static final int GREETING_TIMEOUT_MS = 2_000;

    private static final int NONCE = 16;
    /** The greeting's version, after the magic number: 2 since the acceptor proves itself too. */
    private static final int VERSION = 2;
    private static final int PROOF = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** No shared secret: greetings are checked for form only. */
    public static final MeshAuth NONE = new MeshAuth(null);

    private final byte[] key;

    private MeshAuth(byte[] key) {
        this.key = key;
    }

    /** A mesh keyed with {@code secret}. */
    public static MeshAuth of(String secret) {
        if (secret == null || secret.isEmpty()) {
            throw new IllegalArgumentException(SECRET + " must not be empty");
        }
        return new MeshAuth(secret.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code AIR_SECRET}, else the contents of {@code AIR_SECRET_FILE}, else {@link #NONE}. */
    public static MeshAuth fromEnvironment(Map<String, String> env) {
        String secret = env.get(SECRET);
        if (secret != null && !secret.isEmpty()) {
            return of(secret);
        }
        String file = env.get(SECRET_FILE);
        if (file == null || file.isEmpty()) {
            return NONE;
        }
        try {
            String s = Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
            if (s.isEmpty()) {
                throw new IllegalArgumentException(SECRET_FILE + "=" + file + " is empty");
            }
            return of(s);
        } catch (IOException e) {
            throw new UncheckedIOException(SECRET_FILE + "=" + file + " cannot be read: " + e.getMessage(), e);
        }
    }

    /** A fresh random secret (the local launcher makes one per run). */
    public static String randomSecret() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(String.format("%02x", x & 0xff));
        }
        return sb.toString();
    }

    public boolean enabled() {
        return key != null;
    }

    /**
     * A key of its own for {@code purpose}, HMAC-SHA256 of the purpose under the world's secret:
     * every other use of the secret (checkpoint files) gets one, so that none holds the mesh's key
     * and a MAC made for one use never passes for another. Only with a secret ({@link #enabled}).
     */
    public byte[] derive(String purpose) {
        if (key == null) {
            throw new IllegalStateException("no secret (" + SECRET + ") to derive a key for " + purpose + " from");
        }
        Mac mac = hmac();
        mac.update(purpose.getBytes(StandardCharsets.UTF_8));
        return mac.doFinal();
    }

    private Mac hmac() {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
        }
    }

    /** What a connection that greeted correctly claims, and the nonce the acceptor must answer over. */
    public record Hello(int rank, int lane, byte[] dialerNonce) {

        @Override
        public boolean equals(Object o) {
            return o instanceof Hello h && h.rank == rank && h.lane == lane;
        }

        @Override
        public int hashCode() {
            return rank * 31 + lane;
        }

        @Override
        public String toString() {
            return "Hello[rank=" + rank + ", lane=" + lane + "]";
        }
    }

    /**
     * The dialing side: reads the acceptor's nonce, answers with {@code rank}, {@code lane} and the
     * proof, and waits for the acceptor's verdict, all within {@code timeoutMs} (the acceptor may
     * be busy refusing strangers first); throws {@link IOException} saying why when refused.
     */
    public void dial(Socket s, String purpose, int magic, int rank, int lane, long timeoutMs) throws IOException {
        int before = s.getSoTimeout();
        DataInputStream in = new DataInputStream(new DeadlineInputStream(s, Math.max(GREETING_TIMEOUT_MS, timeoutMs)));
        int theirs = in.readInt();
        if (theirs != magic) {
            throw new IOException(String.format("%s: %s answered with %08x, not an AIR peer's %08x", purpose, s.getRemoteSocketAddress(),
                    theirs, magic));
        }
        int version = in.read();
        if (version != VERSION) {
            throw new IOException(purpose + ": " + s.getRemoteSocketAddress() + " greets with version " + version + ", this peer with "
                    + VERSION + ": every peer must run the same AIR build");
        }
        byte[] nonce = in.readNBytes(NONCE);
        if (nonce.length != NONCE) {
            throw new IOException(purpose + ": " + s.getRemoteSocketAddress() + " closed during the greeting");
        }
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(magic);
        out.writeInt(rank);
        out.writeByte(lane);
        out.write(proof(purpose, nonce, rank, lane));
        byte[] mine = new byte[NONCE];
        RANDOM.nextBytes(mine);
        out.write(mine);
        out.flush();
        int verdict = in.read();
        if (verdict != ACCEPTED) {
            throw new IOException(purpose + ": " + s.getRemoteSocketAddress() + " refused rank " + rank + (enabled()
                    ? " (a different " + SECRET + "?)" : " (it may require " + SECRET + ")") + " or its lane " + lane);
        }
        byte[] theirProof = in.readNBytes(PROOF);
        if (!MessageDigest.isEqual(theirProof, proof(purpose + "/acceptor", mine, rank, lane))) {
            throw new IOException(purpose + ": " + s.getRemoteSocketAddress() + " accepted rank " + rank + " but cannot prove the world's"
                    + " secret (" + SECRET + "): it is not a member (a stranger listening where a peer should be)");
        }
        s.setSoTimeout(before);
    }

    /** The acceptor's verdict on a greeting, once it checked the proof and the claimed rank. */
    private static final int ACCEPTED = 0x59;

    /** The accepting side, once it also checked the claimed rank and lane: tells the dialer it is in, proving its own membership. */
    public void confirm(Socket s, String purpose, Hello hello) throws IOException {
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.write(ACCEPTED);
        out.write(proof(purpose + "/acceptor", hello.dialerNonce(), hello.rank(), hello.lane()));
        out.flush();
    }

    /**
     * The accepting side: sends a nonce and reads the greeting within {@link #GREETING_TIMEOUT_MS}
     * (for the whole greeting, not per read: a drip-fed one is cut off at that deadline);
     * throws {@link IOException} saying why a connection is refused (the caller closes it and goes on).
     */
    public Hello accept(Socket s, String purpose, int magic) throws IOException {
        int before = s.getSoTimeout();
        String from = String.valueOf(s.getRemoteSocketAddress());
        try {
            byte[] nonce = new byte[NONCE];
            RANDOM.nextBytes(nonce);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(magic);
            out.write(VERSION);
            out.write(nonce);
            out.flush();
            DataInputStream in = new DataInputStream(new DeadlineInputStream(s, GREETING_TIMEOUT_MS));
            int theirs = in.readInt();
            if (theirs != magic) {
                throw new IOException(String.format("%s greeted with %08x, not an AIR peer's %08x", from, theirs, magic));
            }
            int rank = in.readInt();
            int lane = in.readByte();
            byte[] proof = in.readNBytes(PROOF);
            if (proof.length != PROOF) {
                throw new IOException(from + " closed during the greeting");
            }
            if (!MessageDigest.isEqual(proof, proof(purpose, nonce, rank, lane))) {
                throw new IOException(from + " claims rank " + rank + " but does not know the world's secret (" + SECRET + ")");
            }
            byte[] dialerNonce = in.readNBytes(NONCE);
            if (dialerNonce.length != NONCE) {
                throw new IOException(from + " closed during the greeting");
            }
            s.setSoTimeout(before);
            return new Hello(rank, lane, dialerNonce);
        } catch (SocketTimeoutException e) {
            throw new IOException(from + " did not greet within " + GREETING_TIMEOUT_MS + " ms", e);
        } catch (EOFException e) {
            throw new IOException(from + " closed during the greeting", e);
        }
    }

    private byte[] proof(String purpose, byte[] nonce, int rank, int lane) {
        if (key == null) {
            return new byte[PROOF];
        }
        Mac mac = hmac();
        mac.update(purpose.getBytes(StandardCharsets.UTF_8));
        mac.update(nonce);
        mac.update(new byte[] {(byte) (rank >>> 24), (byte) (rank >>> 16), (byte) (rank >>> 8), (byte) rank, (byte) lane});
        return mac.doFinal();
    }
}
