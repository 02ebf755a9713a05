package air.channels.bootstrap;

import air.channels.MeshAuth;
import java.io.IOException;
import java.net.InetAddress;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Secure by default: a peer whose own listening sockets (the rendezvous it serves, the liveness
 * mesh, the TCP transport) bind an address other machines reach ({@code AIR_BIND=0.0.0.0} or any
 * non-loopback address) lets anyone who reaches it claim a rank and send control, shuffle and
 * replica messages unless every connection proves the world's secret ({@link MeshAuth}). So such a
 * peer refuses to start without {@code AIR_SECRET} (or {@code AIR_SECRET_FILE}), saying how to set
 * one; {@code AIR_INSECURE=1} opts out explicitly, for a network trusted entirely, and the caller
 * logs the WARN line {@link #check} returns. Loopback alone needs no secret: only this machine's
 * users reach it (the local launcher passes a secret anyway).
 */
public final class BindGuard {

    /** {@code AIR_INSECURE=1}: run on a non-loopback address without a secret, knowingly. */
    public static final String INSECURE = "AIR_INSECURE";

    private BindGuard() {
    }

    /**
     * Whether a peer with {@code bind} ({@code AIR_BIND}; null: loopback) and {@code auth} may start,
     * as {@code env} allows: null when it may; the WARN line to log when it may only because of
     * {@code AIR_INSECURE=1}; an {@link IllegalStateException} saying how to set a secret when it
     * may not. A bind that does not resolve is left to the bootstrap, which names it.
     */
    public static String check(String bind, MeshAuth auth, Map<String, String> env) {
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(env, "env");
        if (auth.enabled() || loopback(bind)) {
            return null;
        }
        if (insecure(env.get(INSECURE))) {
            return INSECURE + "=" + env.get(INSECURE) + ": this peer listens on " + PeerEnvironment.BIND + "=" + bind + " without a mesh "
                    + "secret; anyone who reaches it can claim a rank and send control, shuffle and replica messages. Set "
                    + MeshAuth.SECRET + " on every peer unless this network is trusted entirely (docs/operations.md, Security)";
        }
        throw new IllegalStateException(PeerEnvironment.BIND + "=" + bind + " opens this peer's sockets (the rendezvous, the liveness mesh, "
                + "the TCP transport) beyond this machine, but no mesh secret is set, so anyone who reaches them could join the world. "
                + "Give every peer the same secret: export " + MeshAuth.SECRET + "=$(openssl rand -hex 32) before srun, or "
                + MeshAuth.SECRET_FILE + "=<a file only your user can read> (the launcher's modes set one themselves); "
                + "or, on a network you trust entirely, opt out with " + INSECURE + "=1 (docs/operations.md, Security)");
    }

    /** Whether {@code value} ({@code AIR_INSECURE}) opts out: 1, true or yes; anything else, unset included, does not. */
    static boolean insecure(String value) {
        if (value == null) {
            return false;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "1", "true", "yes" -> true;
            default -> false;
        };
    }

    private static boolean loopback(String bind) {
        if (bind == null) {
            return true;
        }
        try {
            return InetAddress.getByName(bind).isLoopbackAddress();
        } catch (IOException e) {
            return true; // not for this check to judge: the bootstrap names a bind that does not resolve
        }
    }
}
