package air.runtime.impl.cluster;

import air.runtime.Cluster;
import java.util.Objects;
import java.util.function.Function;

/**
 * The engine's way from the public {@link Cluster} to the {@link ClusterSession} jobs run in,
 * without a public method on {@code Cluster} that names an internal type. {@code Cluster} hands
 * its accessor over once, when its class is initialised.
 */
public final class ClusterAccess {

    private static volatile Function<Cluster, ClusterSession> sessions;

    private ClusterAccess() {
    }

    /** Called by {@link Cluster}'s static initialiser; a second call is refused. */
    public static synchronized void install(Function<Cluster, ClusterSession> accessor) {
        if (sessions != null) {
            throw new IllegalStateException("the Cluster accessor is installed already");
        }
        sessions = Objects.requireNonNull(accessor, "accessor");
    }

    /** The session {@code cluster} runs its jobs in. */
    public static ClusterSession session(Cluster cluster) {
        Objects.requireNonNull(cluster, "cluster");
        return sessions.apply(cluster); // a Cluster exists, so its class has installed the accessor
    }
}
