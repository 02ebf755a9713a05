package air.channels.bootstrap;

import air.channels.MeshAuth;
import air.channels.Transport;

/** A peer that has joined its world: the spec it joined by, its transport and the program's own arguments. */
public final class JoinedPeer {

    private final WorldSpec spec;
    private final Transport transport;
    private final Runnable leave;
    private final String[] userArgs;
    private final String advertisedHost;
    private final MeshAuth auth;

    JoinedPeer(WorldSpec spec, Transport transport, Runnable leave, String[] userArgs, String advertisedHost, MeshAuth auth) {
        this.advertisedHost = advertisedHost;
        this.auth = auth;
        this.spec = spec;
        this.transport = transport;
        this.leave = leave;
        this.userArgs = userArgs.clone();
    }

    public WorldSpec spec() {
        return spec;
    }

    public Transport transport() {
        return transport;
    }

    /** The address the other peers reach this one's own listening sockets at ({@link Advertise}). */
    public String advertisedHost() {
        return advertisedHost;
    }

    /** How AIR's own meshes prove membership ({@code AIR_SECRET}). */
    public MeshAuth auth() {
        return auth;
    }

    /** The program's own arguments (under mpjrun, what follows MPJ's). */
    public String[] userArgs() {
        return userArgs.clone();
    }

    /** Once its user has closed the transport: finalizes MPJ where it was used (over TCP there is nothing left to do). */
    public void leave() {
        leave.run();
    }
}
