package air.dsl;

import air.runtime.CheckpointStores;
import air.runtime.api.CheckpointStore;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where checkpoints go, for {@code JobConfig.checkpoints(store, intervalMs)}: e.g.
 * {@code config.checkpoints(Checkpoints.toDirectory(Path.of("ckpt")), 1000)}. A job started again
 * with the same directory resumes from the newest checkpoint all its peers completed. The store
 * comes from the {@code air-checkpoint-files} module, which the DSL brings along at run time.
 */
public final class Checkpoints {

    private Checkpoints() {
    }

    /** Files under {@code dir}, keeping the newest three complete checkpoints. */
    public static CheckpointStore toDirectory(Path dir) {
        return toDirectory(dir, 3);
    }

    /** Files under {@code dir}, keeping the newest {@code retain} (at least 2) complete checkpoints. */
    public static CheckpointStore toDirectory(Path dir, int retain) {
        Objects.requireNonNull(dir, "Checkpoints.toDirectory(dir, retain): dir is null");
        try {
            return CheckpointStores.directory(dir, retain);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Checkpoints.toDirectory(dir, retain): " + e.getMessage(), e);
        }
    }
}
