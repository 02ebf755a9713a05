package air.replication;

import air.runtime.api.CheckpointStore;
import air.runtime.api.CheckpointStoreProvider;
import java.nio.file.Path;

/** Plugs {@link FileCheckpointStore} into the runtime (registered in {@code META-INF/services}). */
public final class FileCheckpointStoreProvider implements CheckpointStoreProvider {

    @Override
    public CheckpointStore directory(Path dir, int retain) {
        return new FileCheckpointStore(dir, retain);
    }
}
