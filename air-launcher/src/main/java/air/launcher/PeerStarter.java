package air.launcher;

import java.io.IOException;
import java.util.Map;
import java.util.function.Consumer;

/** Starts a group of peers for a supervisor: one attempt of a run. */
@FunctionalInterface
public interface PeerStarter {

    /**
     * @param failureGraceMs how long the other peers may run on after one failed
     * @param environment    extra environment variables for every peer
     * @param events         hears every event the peers report, on the launcher's reader threads
     */
    PeerGroup start(long failureGraceMs, Map<String, String> environment, Consumer<PeerEvent> events) throws IOException;
}
