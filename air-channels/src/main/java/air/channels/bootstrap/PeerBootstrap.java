package air.channels.bootstrap;

import air.channels.FrameCodec;
import air.channels.MeshAuth;
import air.channels.Transport;
import air.channels.tcp.TcpTransport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts this peer's side of a world as a {@link WorldSpec} says: serves the rendezvous when it is
 * this peer's to serve, then joins MPJ Express (daemon-less niodev, or the world {@code mpjrun}
 * made) or AIR's TCP mesh, and hands back the {@link Transport}. The only side of the bootstrap
 * with effects; deciding what to do is {@link WorldSpec#of}'s.
 */
public final class PeerBootstrap {

    private static final Logger LOG = LoggerFactory.getLogger(PeerBootstrap.class);

    /** How long a rendezvous served by a peer waits for every rank. */
    public static final long RENDEZVOUS_TIMEOUT_MS = 120_000;

    private PeerBootstrap() {
    }

    /**
     * {@link WorldSpec#of} then {@link #open}: joins as {@code mainArgs} and {@code env} say, once
     * {@link BindGuard} agrees (before anything listens: a peer on a non-loopback address needs a secret).
     */
    public static JoinedPeer join(String[] mainArgs, Map<String, String> env, long startupTimeoutMs) {
        WorldSpec spec = WorldSpec.of(mainArgs, env);
        MeshAuth auth = MeshAuth.fromEnvironment(env);
        String warning = BindGuard.check(spec.bind(), auth, env);
        if (warning != null) {
            LOG.warn(warning);
        }
        return open(spec, env.get(Advertise.VARIABLE), auth, startupTimeoutMs);
    }

    /**
     * Joins the world {@code spec} describes; over TCP peers must meet within {@code startupTimeoutMs}.
     * {@code advertise} ({@code AIR_ADVERTISE}, may be null) names the address the others reach this
     * peer at; else {@link Advertise} works it out. {@code auth} proves membership on AIR's own
     * meshes ({@code AIR_SECRET}).
     */
    public static JoinedPeer open(WorldSpec spec, String advertise, MeshAuth auth, long startupTimeoutMs) {
        String host = Advertise.host(spec.bind(), advertise, spec.rendezvous() == null ? null : spec.rendezvous().host());
        return switch (spec.transport()) {
            case TCP -> new JoinedPeer(spec, startTcp(spec, auth, startupTimeoutMs), () -> { }, spec.userArgs().toArray(String[]::new), host,
                    auth);
            case MPJ -> {
                MpjProvider.Joined world = joinMpj(spec);
                yield new JoinedPeer(spec, world.transport(), world::leave, spec.start() == WorldSpec.Start.MPJRUN ? world.userArgs()
                        : spec.userArgs().toArray(String[]::new), host, auth);
            }
        };
    }

    /**
     * The MPJ world for {@code spec}, whatever its {@link WorldSpec#transport()} says: for programs
     * that need MPJ itself (the MPJ contract tests, the frame benchmark). At most once per JVM.
     */
    public static MpjProvider.Joined joinMpj(WorldSpec spec) {
        MpjProvider mpj = mpjProvider();
        serveRendezvousIfAsked(spec);
        awaitRendezvous(spec, RENDEZVOUS_TIMEOUT_MS);
        // MPJ's start-up trace is muted when MPJ_HOME has no conf
        return mpj.join(spec.mpjInitArgs(), spec.describe(), !QuietMpjHome.hasConf(spec.mpjHome()));
    }

    private static MpjProvider mpjProvider() {
        for (MpjProvider p : ServiceLoader.load(MpjProvider.class, PeerBootstrap.class.getClassLoader())) {
            return p;
        }
        throw new IllegalStateException("this peer was started for MPJ Express, but the MPJ transport is not on the class path: "
                + "add dev.air:air-mpj (and MPJ Express 0.44) to the application, or start the peers with AIR_TRANSPORT=tcp");
    }

    private static Transport startTcp(WorldSpec spec, MeshAuth auth, long startupTimeoutMs) {
        serveRendezvousIfAsked(spec);
        WorldSpec.Endpoint rv = spec.rendezvous();
        try {
            return TcpTransport.start(spec.rank(), spec.peers(), new InetSocketAddress(rv.host(), rv.port()), bindAddress(spec.bind()),
                    new FrameCodec(), auth, startupTimeoutMs);
        } catch (IOException e) {
            throw new UncheckedIOException("peer " + spec.rank() + " could not join the TCP mesh through the rendezvous at "
                    + rv.host() + ":" + rv.port() + ": " + e.getMessage(), e);
        }
    }

    /**
     * niodev connects to the rendezvous once, with no retry: a rank started before rank 0 listens
     * (srun starts them all at once) dies in {@code MPI.Init}. So a rank that does not serve it
     * first waits until the rendezvous accepts a connection (closed at once: the rendezvous takes it
     * for a probe), up to {@code timeoutMs}, then says which address never answered.
     */
    static void awaitRendezvous(WorldSpec spec, long timeoutMs) {
        if (spec.rendezvous() == null || spec.servesRendezvous()) {
            return;
        }
        InetSocketAddress at = new InetSocketAddress(spec.rendezvous().host(), spec.rendezvous().port());
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (true) {
            try (Socket probe = new Socket()) {
                probe.connect(at, 1_000);
                return;
            } catch (IOException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("rank " + spec.rank() + ": the rendezvous at " + at + " did not accept a connection within "
                            + timeoutMs + " ms (" + e.getMessage() + "): is rank 0 running, and AIR_RENDEZVOUS its address?", e);
                }
                LockSupport.parkNanos(50_000_000L); // a retry timer: rank 0 is still starting
            }
        }
    }

    /** Under srun rank 0 serves the rendezvous the others meet at, on {@code AIR_BIND} (loopback by default). */
    private static void serveRendezvousIfAsked(WorldSpec spec) {
        if (spec.servesRendezvous()) {
            int port = spec.rendezvous().port();
            try {
                Rendezvous rv = Rendezvous.listen(bindAddress(spec.bind()), port, spec.peers());
                rv.serveInBackground(RENDEZVOUS_TIMEOUT_MS, e -> System.err.println("air: " + e.getMessage()));
            } catch (IOException e) {
                throw new UncheckedIOException("rank 0 could not serve the rendezvous on port " + port, e);
            }
        }
    }

    /** {@code bind} ({@code AIR_BIND}'s value) resolved; null: loopback. */
    public static InetAddress bindAddress(String bind) throws IOException {
        return bind == null ? InetAddress.getLoopbackAddress() : InetAddress.getByName(bind);
    }
}
