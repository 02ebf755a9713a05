package air.runtime;

import air.channels.FrameCodec;
import air.channels.Transport;
import air.channels.mpj.MpjTransport;
import air.channels.mpj.MpjWorld;
import air.channels.mpj.PeerEnvironment;
import air.runtime.impl.cluster.ClusterSession;
import java.util.List;
import java.util.Objects;

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

    private final ClusterSession session;
    private final MpjTransport mpj;
    private final String[] userArgs;

    private Cluster(Transport transport, MpjTransport mpj, String[] userArgs, Options options) {
        this.session = new ClusterSession(transport, options.heartbeatIntervalMs(), options.failureTimeoutMs(), options.startupTimeoutMs());
        this.mpj = mpj;
        this.userArgs = userArgs;
    }

    /**
     * Joins over MPJ Express: as started by {@code mpjrun} (the arguments begin with rank, conf
     * and device), else as the environment says ({@code AIR_RANK}/{@code AIR_PEERS}/{@code AIR_RENDEZVOUS},
     * or Slurm's {@code SLURM_PROCID}/{@code SLURM_NTASKS} with {@code AIR_RENDEZVOUS}).
     */
    public static Cluster join(String[] mainArgs, Options options) {
        Objects.requireNonNull(mainArgs, "Cluster.join(mainArgs, options): mainArgs is null");
        Objects.requireNonNull(options, "Cluster.join(mainArgs, options): options is null");
        boolean mpjrun = MpjWorld.looksLikeMpjrun(mainArgs);
        MpjWorld world;
        if (mpjrun) {
            world = MpjWorld.fromMpjrun(mainArgs);
        } else {
            PeerEnvironment env = PeerEnvironment.fromEnvironment();
            if (env == null) {
                throw new IllegalStateException("this JVM was not started as a cluster peer: no mpjrun arguments and no "
                        + PeerEnvironment.RANK + "/" + PeerEnvironment.RENDEZVOUS + " (or SLURM_PROCID) in the environment; "
                        + "start peers with './air ... --peers K', srun or mpjrun (see README, Cluster mode)");
            }
            if (PeerEnvironment.wantsTcp(System.getenv())) {
                return new Cluster(joinTcp(env, options), null, mainArgs.clone(), options);
            }
            world = env.world();
        }
        if (mpjrun && PeerEnvironment.wantsTcp(System.getenv())) {
            throw new IllegalStateException(PeerEnvironment.TRANSPORT + "=tcp needs peers started by './air ... --peers K' or srun "
                    + "(AIR_RANK/AIR_PEERS/AIR_RENDEZVOUS); under mpjrun the transport is MPJ Express");
        }
        MpjTransport t = MpjTransport.start(world, new FrameCodec());
        String[] rest = mpjrun ? world.userArgs() : mainArgs.clone();
        return new Cluster(t, t, rest, options);
    }

    private static Transport joinTcp(PeerEnvironment env, Options options) {
        env.serveRendezvousIfAsked();
        try {
            String bind = System.getenv(PeerEnvironment.BIND);
            return air.channels.tcp.TcpTransport.start(env.rank(), env.peers(), new java.net.InetSocketAddress(env.host(), env.port()),
                    bind == null ? java.net.InetAddress.getLoopbackAddress() : java.net.InetAddress.getByName(bind), new FrameCodec(),
                    options.startupTimeoutMs());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("peer " + env.rank() + " could not join the TCP mesh through the rendezvous at "
                    + env.host() + ":" + env.port() + ": " + e.getMessage(), e);
        }
    }

    public static Cluster join(String[] mainArgs) {
        return join(mainArgs, Options.defaults());
    }

    /** A peer over a transport the caller made (tests; several peers inside one JVM with in-JVM transports). */
    public static Cluster over(Transport transport, Options options) {
        Objects.requireNonNull(transport, "Cluster.over(transport, options): transport is null");
        Objects.requireNonNull(options, "Cluster.over(transport, options): options is null");
        return new Cluster(transport, null, new String[0], options);
    }

    /** True when this JVM was started as a peer (by mpjrun, the local launcher or srun). */
    public static boolean startedAsPeer(String[] mainArgs) {
        return MpjWorld.looksLikeMpjrun(mainArgs) || PeerEnvironment.fromEnvironment() != null;
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
        session.barrier();
    }

    /**
     * Collects one byte array from every peer at the gathering peer ({@link #gathers()}: rank 0,
     * or the lowest live rank once replication has outlived lower ones), in rank order, null for a
     * lost peer whose share another took over; the others get an empty list.
     */
    public List<byte[]> gather(byte[] mine) throws InterruptedException {
        return session.gather(Objects.requireNonNull(mine, "Cluster.gather(mine): mine is null"));
    }

    /** Whether this peer is the one {@link #gather} collects at. */
    public boolean gathers() {
        return session.gatherRoot() == session.self();
    }

    /** Engine internal: the session jobs run in. */
    public ClusterSession session() {
        return session;
    }

    /** Leaves the cluster: goodbye heartbeats, transport closed, MPJ finalized where it was used. */
    @Override
    public void close() {
        session.close();
        if (mpj != null) {
            mpj.finalizeWorld();
        }
    }
}
