package air.samples.ysb;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The fault-tolerance options of a YSB run: {@code --checkpoints DIR --checkpoint-interval T}
 * turn checkpointing and rollback on; {@code --kill N [--kill-seed S]} makes the local launcher
 * {@code kill -9} a random peer N times during the run (seeded), restarting every peer from the
 * newest checkpoint each time, and check the output afterwards.
 */
public record YsbFaults(Path checkpoints, long intervalMs, int kills, long killSeed, int maxRestarts) {

    public static final YsbFaults NONE = new YsbFaults(null, 0, 0, 1, 0);

    public boolean checkpointing() {
        return checkpoints != null;
    }

    YsbFaults withCheckpoints(Path dir) {
        return new YsbFaults(dir, intervalMs == 0 ? 1000 : intervalMs, kills, killSeed, maxRestarts);
    }

    YsbFaults withInterval(long ms) {
        return new YsbFaults(checkpoints, ms, kills, killSeed, maxRestarts);
    }

    YsbFaults withKills(int n) {
        return new YsbFaults(checkpoints, intervalMs, n, killSeed, Math.max(maxRestarts, n + 3));
    }

    YsbFaults withKillSeed(long seed) {
        return new YsbFaults(checkpoints, intervalMs, kills, seed, maxRestarts);
    }

    /** Checks how the options combine; {@code peers} is the run's peer count. */
    YsbFaults validated(int peers) {
        if (intervalMs > 0 && checkpoints == null) {
            throw new IllegalArgumentException("--checkpoint-interval needs --checkpoints DIR");
        }
        if (kills > 0 && checkpoints == null) {
            throw new IllegalArgumentException("--kill needs --checkpoints DIR: without checkpoints a killed peer loses the run");
        }
        if (kills > 0 && peers < 2) {
            throw new IllegalArgumentException("--kill needs --peers K with K >= 2: the launcher kills one of the peer JVMs");
        }
        return checkpoints != null && maxRestarts == 0 ? new YsbFaults(checkpoints, intervalMs, kills, killSeed, 3) : this;
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
