package air.channels.bootstrap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How this peer joins its world, as pure data: parsed from {@code main}'s arguments and an
 * environment map by {@link #of}, opened by {@link PeerBootstrap#open}. Nothing here reads the
 * process environment, resolves a name or opens a socket.
 *
 * @param start            who started this peer, and so where its rank comes from
 * @param transport        the transport it opens
 * @param rank             its rank (under {@code mpjrun}: the one {@code mpjrun} passed)
 * @param peers            the size of the world; {@link #PEERS_FROM_MPJ} under {@code mpjrun}, where MPJ reads it from its conf
 * @param rendezvous       where the daemon-less peers meet; null under {@code mpjrun}
 * @param servesRendezvous whether this peer serves that rendezvous itself (rank 0 under {@code srun})
 * @param bind             {@code AIR_BIND}: the interface AIR's own listening sockets bind to; null: loopback
 * @param mpjrunArgs       under {@code mpjrun} the rank, conf and device it passed; empty otherwise
 * @param userArgs         the program's own arguments
 * @param mpjHome          {@code MPJ_HOME}; null when unset
 */
public record WorldSpec(Start start, TransportKind transport, int rank, int peers, Endpoint rendezvous, boolean servesRendezvous,
        String bind, List<String> mpjrunArgs, List<String> userArgs, String mpjHome) {

    /** {@link #peers} under {@code mpjrun}: not known before MPJ Express has started. */
    public static final int PEERS_FROM_MPJ = -1;

    /** Who started this peer. */
    public enum Start {
        /** {@code mpjrun}, through MPJ daemons: the first three arguments are rank, conf and device. */
        MPJRUN,
        /** A launcher that sets {@code AIR_RANK}, {@code AIR_PEERS} and {@code AIR_RENDEZVOUS} (the local launcher does). */
        LAUNCHER,
        /** Slurm's {@code srun}: {@code SLURM_PROCID} and {@code SLURM_NTASKS} with {@code AIR_RENDEZVOUS}; rank 0 serves it. */
        SLURM
    }

    /** The transports a peer can join over ({@code AIR_TRANSPORT}). */
    public enum TransportKind {
        /** MPJ Express niodev, the default: one rank's death breaks every link. */
        MPJ,
        /** AIR's own TCP transport: survives a peer's death, as replication needs; not under {@code mpjrun}. */
        TCP
    }

    /** A host and port, as {@code AIR_RENDEZVOUS} names them. */
    public record Endpoint(String host, int port) {

        public Endpoint {
            Objects.requireNonNull(host, "host");
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port must be in [1, 65535], was " + port);
            }
        }

        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

    public WorldSpec {
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(transport, "transport");
        mpjrunArgs = List.copyOf(mpjrunArgs);
        userArgs = List.copyOf(userArgs);
        if (start == Start.MPJRUN) {
            if (transport != TransportKind.MPJ || mpjrunArgs.size() != 3 || rendezvous != null || servesRendezvous
                    || peers != PEERS_FROM_MPJ) {
                throw new IllegalArgumentException("under mpjrun: MPJ, three MPJ arguments, no rendezvous and peers from MPJ, got " + transport
                        + ", " + mpjrunArgs + ", " + rendezvous + ", " + peers);
            }
        } else {
            Objects.requireNonNull(rendezvous, "rendezvous");
            if (peers < 1 || rank < 0 || rank >= peers) {
                throw new IllegalArgumentException("rank must be in [0, peers) and peers >= 1, were " + rank + " and " + peers);
            }
            if (!mpjrunArgs.isEmpty()) {
                throw new IllegalArgumentException("MPJ arguments only under mpjrun, got " + mpjrunArgs);
            }
        }
    }

    /**
     * How a JVM with these {@code main} arguments and this environment joins: under {@code mpjrun}
     * when the arguments begin with rank, conf and device, else as the environment says
     * ({@link PeerEnvironment}). An environment that makes this no peer is an
     * {@link IllegalStateException}, an unusable or contradictory setting one naming the variable
     * and its value: {@code AIR_TRANSPORT=tcp} under {@code mpjrun}, for one.
     */
    public static WorldSpec of(String[] mainArgs, Map<String, String> env) {
        Objects.requireNonNull(mainArgs, "mainArgs");
        Objects.requireNonNull(env, "env");
        String bind = PeerEnvironment.bind(env);
        String mpjHome = env.get(PeerEnvironment.MPJ_HOME);
        if (looksLikeMpjrun(mainArgs)) {
            int rank;
            try {
                rank = Integer.parseInt(mainArgs[0]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("mpjrun's first argument must be this peer's rank, was '" + mainArgs[0] + "'", e);
            }
            if (PeerEnvironment.wantsTcp(env)) {
                throw new IllegalStateException(PeerEnvironment.TRANSPORT + "=tcp needs peers started by './air ... --peers K' or srun "
                        + "(AIR_RANK/AIR_PEERS/AIR_RENDEZVOUS); under mpjrun the transport is MPJ Express");
            }
            List<String> all = Arrays.asList(mainArgs);
            return new WorldSpec(Start.MPJRUN, TransportKind.MPJ, rank, PEERS_FROM_MPJ, null, false, bind, all.subList(0, 3),
                    all.subList(3, all.size()), mpjHome);
        }
        PeerEnvironment pe = PeerEnvironment.from(env);
        if (pe == null) {
            throw new IllegalStateException("this JVM was not started as a cluster peer: no mpjrun arguments and no "
                    + PeerEnvironment.RANK + "/" + PeerEnvironment.RENDEZVOUS + " (or SLURM_PROCID) in the environment; "
                    + "start peers with './air ... --peers K', srun or mpjrun (see docs/operations.md, Cluster mode)"
                    + PeerEnvironment.whyNotAPeer(env));
        }
        TransportKind transport = PeerEnvironment.wantsTcp(env) ? TransportKind.TCP : TransportKind.MPJ;
        return new WorldSpec(pe.slurm() ? Start.SLURM : Start.LAUNCHER, transport, pe.rank(), pe.peers(), new Endpoint(pe.host(), pe.port()),
                pe.serveRendezvous(), bind, List.of(), Arrays.asList(mainArgs), mpjHome);
    }

    /**
     * True when this JVM was started as a peer: by {@code mpjrun} (the arguments say so), or with
     * a rank and a rendezvous in {@code env}; a setting there that is unusable is an error.
     */
    public static boolean startedAsPeer(String[] mainArgs, Map<String, String> env) {
        return looksLikeMpjrun(mainArgs) || PeerEnvironment.from(env) != null;
    }

    /** True when {@code mainArgs} look like what {@code mpjrun} passes: a rank, a conf and a device. */
    public static boolean looksLikeMpjrun(String[] mainArgs) {
        return mainArgs.length >= 3 && mainArgs[0].matches("\\d+") && (mainArgs[2].endsWith("dev") || mainArgs[2].equals("native"));
    }

    /**
     * The arguments {@code MPI.Init} gets: under {@code mpjrun} all of {@code main}'s; daemon-less,
     * this rank, a niodev conf naming the world's size and the rendezvous, and the device.
     */
    public List<String> mpjInitArgs() {
        if (start == Start.MPJRUN) {
            List<String> all = new ArrayList<>(mpjrunArgs);
            all.addAll(userArgs);
            return List.copyOf(all);
        }
        String conf = "#Number of Processes;" + peers + ";#Protocol Switch Limit;131072;#Server Name;" + rendezvous.host()
                + ";#Server Port;" + rendezvous.port();
        return List.of(Integer.toString(rank), conf, "niodev");
    }

    /** For logs and errors: how this peer joins. */
    public String describe() {
        if (start == Start.MPJRUN) {
            return "via mpjrun, device " + mpjrunArgs.get(2);
        }
        return switch (transport) {
            case MPJ -> "niodev, daemon-less, rank " + rank + " of " + peers + ", rendezvous " + rendezvous;
            case TCP -> "TCP, rank " + rank + " of " + peers + ", rendezvous " + rendezvous;
        };
    }
}
