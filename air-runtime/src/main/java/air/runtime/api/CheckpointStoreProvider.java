package air.runtime.api;

import java.nio.file.Path;

/**
 * Supplies checkpoint stores to the runtime; found with {@link java.util.ServiceLoader}, so that
 * fault tolerance plugs in (the {@code air-checkpoint-files} module provides the file store) without
 * the runtime or the DSL depending on it.
 */
public interface CheckpointStoreProvider {

    /** A store that keeps checkpoints as files under {@code dir}, the newest {@code retain} complete ones. */
    CheckpointStore directory(Path dir, int retain);
}
