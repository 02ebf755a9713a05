package air.checkpoint.files;

import air.runtime.api.CheckpointStore;
import air.runtime.api.CheckpointStoreProvider;
import java.nio.file.Path;

/**
 * Plugs {@link FileCheckpointStore} into the runtime (registered in {@code META-INF/services}). The
 * store signs its files under the secret of the world this process is a peer of, read from the
 * environment as the peer reads it when it joins ({@link CheckpointKey#ofThisWorld}), so that the
 * runtime's SPI need not carry secrets.
 */
public final class FileCheckpointStoreProvider implements CheckpointStoreProvider {

    @Override
    public CheckpointStore directory(Path dir, int retain) {
        return new FileCheckpointStore(dir, retain);
    }
}
