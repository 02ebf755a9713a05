package air.channels.mpj;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.util.Map;

/**
 * Where a peer process learns its place in a daemon-less world: {@code AIR_RANK}, {@code AIR_PEERS}
 * and {@code AIR_RENDEZVOUS=host:port} (set by the local launcher, {@code air.launcher.LocalCluster}), or under Slurm's
 * {@code srun} {@code SLURM_PROCID} and {@code SLURM_NTASKS} with {@code AIR_RENDEZVOUS}, where
 * rank 0 serves the rendezvous itself (on the interface {@code AIR_BIND}, loopback by default).
 */
public record PeerEnvironment(int rank, int peers, String host, int port, boolean serveRendezvous) {

    public static final String RANK = "AIR_RANK";
    public static final String PEERS = "AIR_PEERS";
    public static final String RENDEZVOUS = "AIR_RENDEZVOUS";
    public static final String BIND = "AIR_BIND";

    /** What a launcher sets for peer {@code rank} of {@code peers} meeting at the rendezvous {@code host:port}. */
    public static Map<String, String> variables(int rank, int peers, String host, int port) {
        return Map.of(RANK, Integer.toString(rank), PEERS, Integer.toString(peers), RENDEZVOUS, host + ":" + port);
    }

    /** The environment of this process, or null when it was not started as a daemon-less peer. */
    public static PeerEnvironment fromEnvironment() {
        return from(System.getenv());
    }

    static PeerEnvironment from(Map<String, String> env) {
        String rv = env.get(RENDEZVOUS);
        boolean slurm = env.get(RANK) == null && env.get("SLURM_PROCID") != null;
        String rank = slurm ? env.get("SLURM_PROCID") : env.get(RANK);
        String peers = slurm ? env.get("SLURM_NTASKS") : env.get(PEERS);
        if (rank == null || rv == null) {
            return null;
        }
        int colon = rv.lastIndexOf(':');
        if (colon <= 0 || peers == null) {
            throw new IllegalArgumentException(RENDEZVOUS + " must be host:port and " + (slurm ? "SLURM_NTASKS" : PEERS)
                    + " must be set, got " + RENDEZVOUS + "=" + rv + ", peers=" + peers);
        }
        try {
            int r = Integer.parseInt(rank.trim());
            return new PeerEnvironment(r, Integer.parseInt(peers.trim()), rv.substring(0, colon),
                    Integer.parseInt(rv.substring(colon + 1)), slurm && r == 0);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad peer environment: rank=" + rank + ", peers=" + peers + ", " + RENDEZVOUS + "=" + rv, e);
        }
    }

    /** The MPJ world for this peer; under srun rank 0 starts serving the rendezvous first. */
    public MpjWorld world() {
        serveRendezvousIfAsked();
        return MpjWorld.daemonless(rank, peers, host, port);
    }

    /** Under srun rank 0 serves the rendezvous the others meet at. */
    public void serveRendezvousIfAsked() {
        if (serveRendezvous) {
            try {
                String bind = System.getenv(BIND);
                Rendezvous rv = Rendezvous.listen(bind == null ? InetAddress.getLoopbackAddress() : InetAddress.getByName(bind), port, peers);
                rv.serveInBackground(120_000, e -> System.err.println("air: " + e.getMessage()));
            } catch (IOException e) {
                throw new UncheckedIOException("rank 0 could not serve the rendezvous on port " + port, e);
            }
        }
    }

    /** {@code AIR_TRANSPORT}: {@code mpj} (the default) or {@code tcp}, AIR's own transport that survives a peer's death. */
    public static final String TRANSPORT = "AIR_TRANSPORT";

    /** Whether this peer should use the TCP transport ({@code AIR_TRANSPORT=tcp}); anything but mpj or tcp is an error. */
    public static boolean wantsTcp(Map<String, String> env) {
        String t = env.getOrDefault(TRANSPORT, "mpj").trim().toLowerCase(java.util.Locale.ROOT);
        return switch (t) {
            case "mpj", "" -> false;
            case "tcp" -> true;
            default -> throw new IllegalArgumentException(TRANSPORT + " must be mpj or tcp, was '" + env.get(TRANSPORT) + "'");
        };
    }
}
