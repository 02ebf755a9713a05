package air.runtime;

import air.channels.MeshAuth;
import air.channels.Transport;
import air.channels.bootstrap.Advertise;
import air.channels.bootstrap.BindGuard;
import air.channels.bootstrap.JoinedPeer;
import air.channels.bootstrap.PeerBootstrap;
import air.channels.bootstrap.PeerEnvironment;
import air.channels.bootstrap.WorldSpec;
import air.runtime.impl.cluster.ClusterAccess;
import air.runtime.impl.cluster.ClusterSession;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This JVM's membership in a cluster of symmetric peers: every peer runs the same program, builds
 * the same pipelines and submits them with {@link JobConfig#cluster(Cluster)}; there is no driver.
 * Peers exchange a plan fingerprint before each job, send heartbeats, and fail the job on every
 * peer, naming the culprit, when one dies or fails.
 *
 * <p>Start peers with the local launcher ({@code ./air ... --peers K}, {@code air.launcher.LocalCluster}),
 * under {@code srun}, or with {@code mpjrun}; {@link #join(String[])} recognises all three.
 */
public final class Cluster implements AutoCloseable {

    /** Failure detection and start-up limits. */
    public record Options(long heartbeatIntervalMs, long failureTimeoutMs, long startupTimeoutMs) {

        public Options {
            if (heartbeatIntervalMs < 1) {
                throw new IllegalArgumentException("heartbeatIntervalMs must be >= 1, was " + heartbeatIntervalMs);
            }
            if (failureTimeoutMs <= heartbeatIntervalMs) {
                throw new IllegalArgumentException("failureTimeoutMs must exceed heartbeatIntervalMs (" + heartbeatIntervalMs
                        + "), was " + failureTimeoutMs);
            }
            if (startupTimeoutMs < 1) {
                throw new IllegalArgumentException("startupTimeoutMs must be >= 1, was " + startupTimeoutMs);
            }
        }

        /** Heartbeats every 500 ms, a peer silent for 3 s is lost, peers must meet within 60 s. */
        public static Options defaults() {
            return new Options(500, 3_000, 60_000);
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(Cluster.class);

    static {
        ClusterAccess.install(c -> c.session); // the engine's way to the session, not public API
    }

    private final ClusterSession session;
    /** How this peer joined when it joined through the bootstrap; null for {@link #over}. */
    private final JoinedPeer joined;
    private final String[] userArgs;

    private Cluster(Transport transport, JoinedPeer joined, String[] userArgs, String bind, String advertise, MeshAuth auth, Options options) {
        this.session = new ClusterSession(transport, options.heartbeatIntervalMs(), options.failureTimeoutMs(), options.startupTimeoutMs(), bind,
                advertise, auth);
        this.joined = joined;
        this.userArgs = userArgs;
    }

    /**
     * Joins as this JVM was started: by {@code mpjrun} (the arguments begin with rank, conf and
     * device), else as the environment says ({@code AIR_RANK}/{@code AIR_PEERS}/{@code AIR_RENDEZVOUS},
     * or Slurm's {@code SLURM_PROCID}/{@code SLURM_NTASKS} with {@code AIR_RENDEZVOUS}), over MPJ
     * Express or, with {@code AIR_TRANSPORT=tcp}, AIR's TCP transport ({@link PeerBootstrap} decides).
     */
    public static Cluster join(String[] mainArgs, Options options) {
        Objects.requireNonNull(mainArgs, "Cluster.join(mainArgs, options): mainArgs is null");
        Objects.requireNonNull(options, "Cluster.join(mainArgs, options): options is null");
        JoinedPeer peer = PeerBootstrap.join(mainArgs, PeerEnvironment.current(), options.startupTimeoutMs());
        return new Cluster(peer.transport(), peer, peer.userArgs(), peer.spec().bind(), peer.advertisedHost(), peer.auth(), options);
    }

    public static Cluster join(String[] mainArgs) {
        return join(mainArgs, Options.defaults());
    }

    /**
     * A peer over a transport the caller made (tests; several peers inside one JVM with in-JVM
     * transports). Its liveness connections listen on {@code AIR_BIND} as a joined peer's do, and
     * so need a secret as theirs do off loopback ({@link BindGuard}).
     */
    public static Cluster over(Transport transport, Options options) {
        Objects.requireNonNull(transport, "Cluster.over(transport, options): transport is null");
        Objects.requireNonNull(options, "Cluster.over(transport, options): options is null");
        Map<String, String> env = PeerEnvironment.current();
        String bind = PeerEnvironment.bind(env);
        MeshAuth auth = MeshAuth.fromEnvironment(env);
        String warning = BindGuard.check(bind, auth, env);
        if (warning != null) {
            LOG.warn(warning);
        }
        return new Cluster(transport, null, new String[0], bind, Advertise.host(bind, env.get(Advertise.VARIABLE), null), auth, options);
    }

    /** True when this JVM was started as a peer (by mpjrun, the local launcher or srun). */
    public static boolean startedAsPeer(String[] mainArgs) {
        return WorldSpec.startedAsPeer(mainArgs, PeerEnvironment.current());
    }

    public int self() {
        return session.self();
    }

    public int peers() {
        return session.peers();
    }

    /** The program's own arguments (under mpjrun, what follows MPJ's). */
    public String[] userArgs() {
        return userArgs.clone();
    }

    /** Returns once every peer has called it; fails if a peer is lost meanwhile. */
    public void barrier() throws InterruptedException {
        session.barrier(ClusterSession.Patience.UNBOUNDED);
    }

    /**
     * {@link #barrier()}, failing with the peers that never arrived once {@code timeout} has passed
     * (a peer alive but stuck keeps heartbeating: without a timeout only the log names it).
     */
    public void barrier(Duration timeout) throws InterruptedException {
        session.barrier(patience("Cluster.barrier(timeout)", timeout));
    }

    private static ClusterSession.Patience patience(String call, Duration timeout) {
        Objects.requireNonNull(timeout, call + ": timeout is null");
        if (timeout.toMillis() < 1) {
            throw new IllegalArgumentException(call + ": timeout must be at least 1 ms, was " + timeout);
        }
        return new ClusterSession.Patience(timeout.toMillis(), ClusterSession.Patience.UNBOUNDED.noteEveryMs());
    }

    /**
     * Collects one byte array from every peer at the gathering peer ({@link #gathers()}: rank 0,
     * or the lowest live rank once replication has outlived lower ones), in rank order, null for a
     * lost peer whose share another took over; the others get an empty list.
     */
    public List<byte[]> gather(byte[] mine) throws InterruptedException {
        return session.gather(Objects.requireNonNull(mine, "Cluster.gather(mine): mine is null"), ClusterSession.Patience.UNBOUNDED);
    }

    /** {@link #gather(byte[])}, failing at the gathering peer with the peers that never sent their part once {@code timeout} has passed. */
    public List<byte[]> gather(byte[] mine, Duration timeout) throws InterruptedException {
        return session.gather(Objects.requireNonNull(mine, "Cluster.gather(mine, timeout): mine is null"),
                patience("Cluster.gather(mine, timeout)", timeout));
    }

    /** Whether this peer is the one {@link #gather} collects at. */
    public boolean gathers() {
        return session.gatherRoot() == session.self();
    }

    /** Leaves the cluster: goodbye heartbeats, transport closed, MPJ finalized where it was used. */
    @Override
    public void close() {
        session.close();
        if (joined != null) {
            joined.leave();
        }
    }
}
