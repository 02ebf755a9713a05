package air.launcher;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;

/**
 * Where a {@link LocalCluster}'s peers run when not all on this machine's loopback: hosts of their
 * own that the launcher reaches by command (network namespaces, say, one per peer). The launcher
 * keeps running here; its rendezvous and event channel listen on {@link #launcherAddress}, which
 * every host must reach, and each peer is started with {@link #command} on its rank's host.
 */
public interface PeerHosts {

    /** The address the launcher's rendezvous and event channel listen on; every host reaches it. */
    InetAddress launcherAddress();

    /** {@code command} as run on the host of peer {@code rank} (for example behind {@code ip netns exec NAME}). */
    List<String> command(int rank, List<String> command);

    /** Extra environment variables for every peer (such as {@code AIR_BIND=0.0.0.0}, so that the others reach it). */
    default Map<String, String> environment() {
        return Map.of();
    }

    /**
     * Cuts the host of peer {@code rank} off the network (a pulled cable, a switch port down), until
     * {@link #heal}: it keeps running but reaches nobody, and nobody reaches it.
     */
    default void cut(int rank) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot cut a host off the network");
    }

    /** Connects a cut host again; harmless for one that is not cut. */
    default void heal(int rank) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot heal a host's link");
    }
}
