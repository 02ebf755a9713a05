package air.channels.bootstrap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.util.Collections;

/**
 * The address a peer tells the others to reach its own listening sockets at (the liveness mesh;
 * the TCP mesh and MPJ learn it from the rendezvous instead). Never a wildcard: with
 * {@code AIR_BIND=0.0.0.0} a peer listens on every interface but must name one the others can
 * route to. In order: {@code AIR_ADVERTISE}; the bind address when it is a specific one; the local
 * address of the route towards the rendezvous host (the interface the others reach this host
 * through, found without sending anything); this host's first up, non-loopback IPv4 address;
 * loopback.
 */
public final class Advertise {

    /** The variable that names the advertised address outright. */
    public static final String VARIABLE = "AIR_ADVERTISE";

    private Advertise() {
    }

    /**
     * @param bind        {@code AIR_BIND} (null: loopback)
     * @param advertise   {@code AIR_ADVERTISE} (null: work it out)
     * @param towardsHost the rendezvous host, or null when there is none (under {@code mpjrun})
     */
    public static String host(String bind, String advertise, String towardsHost) {
        if (advertise != null && !advertise.isBlank()) {
            return advertise.trim();
        }
        InetAddress b = resolve(bind, "AIR_BIND");
        if (b == null) {
            return InetAddress.getLoopbackAddress().getHostAddress();
        }
        if (!b.isAnyLocalAddress()) {
            return b.getHostAddress();
        }
        if (towardsHost != null) {
            InetAddress routed = routeTowards(towardsHost);
            if (routed != null) {
                return routed.getHostAddress();
            }
        }
        InetAddress site = firstSiteAddress();
        return (site != null ? site : InetAddress.getLoopbackAddress()).getHostAddress();
    }

    private static InetAddress resolve(String host, String variable) {
        if (host == null) {
            return null;
        }
        try {
            return InetAddress.getByName(host);
        } catch (IOException e) {
            throw new UncheckedIOException(variable + "=" + host + " does not resolve: " + e.getMessage(), e);
        }
    }

    /** The local address the system would send from towards {@code host} (a connected datagram socket sends nothing). */
    static InetAddress routeTowards(String host) {
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(new InetSocketAddress(InetAddress.getByName(host), 9));
            InetAddress local = probe.getLocalAddress();
            return local == null || local.isAnyLocalAddress() ? null : local;
        } catch (IOException | RuntimeException e) {
            return null; // no route: fall back to the host's own addresses
        }
    }

    private static InetAddress firstSiteAddress() {
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nic.isUp() || nic.isLoopback()) {
                    continue;
                }
                for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                    if (a instanceof Inet4Address && !a.isLinkLocalAddress()) {
                        return a;
                    }
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }
}
