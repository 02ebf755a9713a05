package air.samples.ysb;

import air.runtime.JobConfig;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The fault-tolerance options of a YSB run: {@code --checkpoints DIR --checkpoint-interval T}
 * turn checkpointing and rollback on; {@code --kill N [--kill-seed S]} makes the local launcher
 * {@code kill -9} a random peer N times during the run (seeded), restarting every peer from the
 * newest checkpoint each time, and check the output afterwards. {@code --replicas K} turns
 * replication on instead: each peer's state lives in the memory of its next K peers, and with
 * {@code --kill N} the survivors take a killed peer's share over without a restart.
 * {@code --full-checkpoint-every N}: one checkpoint or replica copy in N holds whole state, the
 * others only what changed since the one before (1: all whole). {@code --savepoint DIR --stop-after T}:
 * checkpoints to DIR, and after T the run stops with a savepoint there, which a run with any
 * {@code --peers} and P resumes.
 */
public record YsbFaults(Path checkpoints, long intervalMs, int kills, long killSeed, int maxRestarts, int replicas, int fullEvery,
                        long stopAfterMs) {

    public static final YsbFaults NONE = new YsbFaults(null, 0, 0, 1, 0, 0, JobConfig.defaults().fullCheckpointEvery(), 0);

    public boolean checkpointing() {
        return checkpoints != null;
    }

    /** Whether the run stops with a savepoint ({@code --savepoint DIR --stop-after T}) instead of running to its end. */
    public boolean stopsWithSavepoint() {
        return stopAfterMs > 0;
    }

    YsbFaults withStopAfter(long ms) {
        return new YsbFaults(checkpoints, intervalMs, kills, killSeed, maxRestarts, replicas, fullEvery, ms);
    }

    public boolean replicating() {
        return replicas > 0;
    }

    YsbFaults withReplicas(int k) {
        return new YsbFaults(checkpoints, intervalMs, kills, killSeed, maxRestarts, k, fullEvery, stopAfterMs);
    }

    /** The snapshot interval in effect: as given, else 1 s. */
    long intervalOrDefault() {
        return intervalMs == 0 ? 1000 : intervalMs;
    }

    YsbFaults withCheckpoints(Path dir) {
        return new YsbFaults(dir, intervalMs == 0 ? 1000 : intervalMs, kills, killSeed, maxRestarts, replicas, fullEvery, stopAfterMs);
    }

    YsbFaults withInterval(long ms) {
        return new YsbFaults(checkpoints, ms, kills, killSeed, maxRestarts, replicas, fullEvery, stopAfterMs);
    }

    YsbFaults withKills(int n) {
        return new YsbFaults(checkpoints, intervalMs, n, killSeed, Math.max(maxRestarts, n + 3), replicas, fullEvery, stopAfterMs);
    }

    YsbFaults withFullEvery(int n) {
        return new YsbFaults(checkpoints, intervalMs, kills, killSeed, maxRestarts, replicas, n, stopAfterMs);
    }

    YsbFaults withKillSeed(long seed) {
        return new YsbFaults(checkpoints, intervalMs, kills, seed, maxRestarts, replicas, fullEvery, stopAfterMs);
    }

    /** Checks how the options combine; {@code peers} is the run's peer count. */
    YsbFaults validated(int peers) {
        if (intervalMs > 0 && checkpoints == null && replicas == 0) {
            throw new IllegalArgumentException("--checkpoint-interval needs --checkpoints DIR or --replicas K");
        }
        if (replicas > 0 && checkpoints != null) {
            throw new IllegalArgumentException("--replicas and --checkpoints are the two fault-tolerance strategies: choose one");
        }
        if (replicas > 0 && peers <= replicas) {
            throw new IllegalArgumentException("--replicas " + replicas + " needs --peers K with K > " + replicas);
        }
        if (kills > 0 && checkpoints == null && replicas == 0) {
            throw new IllegalArgumentException("--kill needs --checkpoints DIR or --replicas K: without either a killed peer loses the run");
        }
        if (replicas > 0 && kills > peers - 1) {
            throw new IllegalArgumentException("--kill " + kills + " with --replicas: each kill removes a peer for good and one must "
                    + "be left, so at most " + (peers - 1) + " kills with " + peers + " peers");
        }
        if (kills > 0 && peers < 2) {
            throw new IllegalArgumentException("--kill needs --peers K with K >= 2: the launcher kills one of the peer JVMs");
        }
        if (stopAfterMs > 0 && (kills > 0 || replicas > 0)) {
            throw new IllegalArgumentException("--savepoint stops the run on purpose: it does not combine with --kill or --replicas");
        }
        return checkpoints != null && maxRestarts == 0
                ? new YsbFaults(checkpoints, intervalMs, kills, killSeed, 3, replicas, fullEvery, stopAfterMs) : this;
    }

    /** A duration like {@code 1s}, {@code 500ms} or {@code 250} (milliseconds). */
    static long parseMillis(String name, String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        long scale = 1;
        if (t.endsWith("ms")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("s")) {
            t = t.substring(0, t.length() - 1);
            scale = 1000;
        }
        try {
            long v = Math.multiplyExact(Long.parseLong(t), scale);
            if (v <= 0) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException(name + " must be a positive duration like 1s or 500ms, got '" + text + "'");
        }
    }
}
