package air.channels.bootstrap;

import air.channels.MeshAuth;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Where a peer process learns its place in a daemon-less world: {@code AIR_RANK}, {@code AIR_PEERS}
 * and {@code AIR_RENDEZVOUS=host:port} (set by the local launcher, {@code air.launcher.LocalCluster}), or under Slurm's
 * {@code srun} {@code SLURM_PROCID} and {@code SLURM_NTASKS} with {@code AIR_RENDEZVOUS}, where
 * rank 0 serves the rendezvous itself (on the interface {@code AIR_BIND}, loopback by default).
 * Pure parsing: the environment comes in as a map, nothing is opened here.
 */
public record PeerEnvironment(boolean slurm, int rank, int peers, String host, int port) {

    public static final String RANK = "AIR_RANK";
    public static final String PEERS = "AIR_PEERS";
    public static final String RENDEZVOUS = "AIR_RENDEZVOUS";
    public static final String BIND = "AIR_BIND";
    /** {@code AIR_TRANSPORT}: {@code mpj} (the default) or {@code tcp}, AIR's own transport that survives a peer's death. */
    public static final String TRANSPORT = "AIR_TRANSPORT";
    public static final String SLURM_PROCID = "SLURM_PROCID";
    public static final String SLURM_NTASKS = "SLURM_NTASKS";
    /** Where MPJ Express looks for {@code conf/mpjexpress.conf}. */
    public static final String MPJ_HOME = "MPJ_HOME";

    /** What a launcher sets for peer {@code rank} of {@code peers} meeting at the rendezvous {@code host:port}. */
    public static Map<String, String> variables(int rank, int peers, String host, int port) {
        return Map.of(RANK, Integer.toString(rank), PEERS, Integer.toString(peers), RENDEZVOUS, host + ":" + port);
    }

    /**
     * The system property {@code mpjrun} hands a run's secret file in ({@code -Dair.secret.file=PATH}):
     * the processes an MPJ daemon starts inherit the daemon's environment, not {@code mpjrun}'s, but
     * get the JVM options {@code mpjrun} was given.
     */
    public static final String SECRET_FILE_PROPERTY = "air.secret.file";
    /**
     * The system property ({@code -Dair.secret.per.run=true}) with which {@code mpjrun} says that the
     * secret file holds a secret made for this run alone ({@link MeshAuth#SECRET_PER_RUN}).
     */
    public static final String SECRET_PER_RUN_PROPERTY = "air.secret.per.run";

    /**
     * This process's environment as a peer reads it: {@link System#getenv()}, and {@code AIR_SECRET_FILE}
     * from {@link #SECRET_FILE_PROPERTY} (with {@code AIR_SECRET_PER_RUN} from {@link #SECRET_PER_RUN_PROPERTY})
     * when the environment names no secret of its own.
     */
    public static Map<String, String> current() {
        return withSecretFile(System.getenv(), System.getProperty(SECRET_FILE_PROPERTY), Boolean.getBoolean(SECRET_PER_RUN_PROPERTY));
    }

    /**
     * {@code env} with {@code AIR_SECRET_FILE=file}, and {@code AIR_SECRET_PER_RUN=1} when {@code perRun},
     * when {@code file} is set and {@code env} has neither secret variable.
     */
    static Map<String, String> withSecretFile(Map<String, String> env, String file, boolean perRun) {
        if (file == null || file.isBlank() || env.get(MeshAuth.SECRET) != null || env.get(MeshAuth.SECRET_FILE) != null) {
            return env;
        }
        Map<String, String> all = new HashMap<>(env);
        all.put(MeshAuth.SECRET_FILE, file);
        if (perRun) {
            all.put(MeshAuth.SECRET_PER_RUN, "1");
        } else {
            all.remove(MeshAuth.SECRET_PER_RUN);
        }
        return Map.copyOf(all);
    }

    /** The environment of this process, or null when it was not started as a daemon-less peer. */
    public static PeerEnvironment fromEnvironment() {
        return from(System.getenv());
    }

    /**
     * This peer's place as {@code env} says, or null when it names no rank or no rendezvous (not
     * started as a daemon-less peer). {@code AIR_RANK} wins over {@code SLURM_PROCID}: the local
     * launcher may run inside a Slurm allocation. A setting that is there but unusable, or two that
     * contradict each other, is an {@link IllegalArgumentException} naming the variables and their values.
     */
    public static PeerEnvironment from(Map<String, String> env) {
        Objects.requireNonNull(env, "env");
        String rv = env.get(RENDEZVOUS);
        boolean slurm = env.get(RANK) == null && env.get(SLURM_PROCID) != null;
        String rankVar = slurm ? SLURM_PROCID : RANK;
        String peersVar = slurm ? SLURM_NTASKS : PEERS;
        String rank = env.get(rankVar);
        String peers = env.get(peersVar);
        if (rank == null || rv == null) {
            return null;
        }
        if (peers == null) {
            throw new IllegalArgumentException(peersVar + " must be set too, got " + rankVar + "=" + rank + " and " + RENDEZVOUS + "=" + rv
                    + " but no " + peersVar);
        }
        int colon = rv.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException(RENDEZVOUS + " must be host:port, was '" + rv + "'");
        }
        int r = number(rankVar, rank);
        int n = number(peersVar, peers);
        if (n < 1) {
            throw new IllegalArgumentException(peersVar + " must be >= 1, was " + peers);
        }
        if (r < 0 || r >= n) {
            throw new IllegalArgumentException(rankVar + " must be in [0, " + n + ") as " + peersVar + "=" + peers + ", was " + rank);
        }
        if (slurm && env.get(PEERS) != null && number(PEERS, env.get(PEERS)) != n) {
            throw new IllegalArgumentException(PEERS + "=" + env.get(PEERS) + " contradicts " + SLURM_NTASKS + "=" + peers
                    + ": under srun the peers are Slurm's tasks; unset " + PEERS + " or make them agree");
        }
        int port;
        try {
            port = Integer.parseInt(rv.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(RENDEZVOUS + " must be host:port with a port in [1, 65535], was '" + rv + "'");
        }
        return new PeerEnvironment(slurm, r, n, rv.substring(0, colon), port);
    }

    /**
     * Why {@link #from} found no peer in {@code env} when some of the variables are there, as a
     * sentence to append to an error ("" when none is).
     */
    static String whyNotAPeer(Map<String, String> env) {
        String rv = env.get(RENDEZVOUS);
        String rank = env.get(RANK) != null ? RANK : env.get(SLURM_PROCID) != null ? SLURM_PROCID : null;
        if (rank != null && rv == null) {
            return " (" + rank + "=" + env.get(rank) + " is set but " + RENDEZVOUS + " is not)";
        }
        if (rank == null && rv != null) {
            return " (" + RENDEZVOUS + "=" + rv + " is set but neither " + RANK + " nor " + SLURM_PROCID + ")";
        }
        return "";
    }

    private static int number(String variable, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(variable + " must be a number, was '" + value + "'", e);
        }
    }

    /** Under srun rank 0 serves the rendezvous the others meet at. */
    public boolean serveRendezvous() {
        return slurm && rank == 0;
    }

    /** Whether this peer should use the TCP transport ({@code AIR_TRANSPORT=tcp}); anything but mpj or tcp is an error. */
    public static boolean wantsTcp(Map<String, String> env) {
        String t = env.getOrDefault(TRANSPORT, "mpj").trim().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "mpj", "" -> false;
            case "tcp" -> true;
            default -> throw new IllegalArgumentException(TRANSPORT + " must be mpj or tcp, was '" + env.get(TRANSPORT) + "'");
        };
    }

    /** {@code AIR_BIND}: the interface AIR's own listening sockets bind to; null: loopback. */
    public static String bind(Map<String, String> env) {
        return env.get(BIND);
    }
}
