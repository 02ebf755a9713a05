package air.runtime;

import air.runtime.api.CheckpointStore;
import air.runtime.api.CheckpointStoreProvider;
import java.nio.file.Path;
import java.util.Objects;
import java.util.ServiceLoader;

/** Checkpoint stores from whichever {@link CheckpointStoreProvider} is on the class path. */
public final class CheckpointStores {

    private CheckpointStores() {
    }

    /** Checkpoints as files under {@code dir}, keeping the newest {@code retain} complete ones. */
    public static CheckpointStore directory(Path dir, int retain) {
        Objects.requireNonNull(dir, "dir is null");
        for (CheckpointStoreProvider provider : ServiceLoader.load(CheckpointStoreProvider.class, CheckpointStores.class.getClassLoader())) {
            return provider.directory(dir, retain);
        }
        throw new IllegalStateException("no checkpoint store on the class path: add the dev.air:air-checkpoint-files module");
    }
}
