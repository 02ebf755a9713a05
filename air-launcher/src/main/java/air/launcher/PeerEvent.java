package air.launcher;

import air.runtime.JobEvent;
import java.util.Objects;

/**
 * What a peer started by the launcher reports over its event channel: the engine's
 * {@link JobEvent}s, and the output marks of first-output tracking (for recovery times).
 */
public sealed interface PeerEvent {

    /** The peer's rank. */
    int peer();

    /** When, in wall-clock milliseconds on that peer. */
    long atMs();

    /** An event of a job running on the peer. */
    record Job(JobEvent event) implements PeerEvent {
        public Job {
            Objects.requireNonNull(event, "event");
        }

        @Override
        public int peer() {
            return event.peer();
        }

        @Override
        public long atMs() {
            return event.atMs();
        }
    }

    /** The first result row of this peer process reached its sink. */
    record FirstOutput(int peer, long atMs) implements PeerEvent { }

    /** A sink writer restored from a checkpoint or a replica (sink instance {@code instance}) wrote its first new row. */
    record RestoredOutput(int peer, long atMs, int instance) implements PeerEvent { }
}
