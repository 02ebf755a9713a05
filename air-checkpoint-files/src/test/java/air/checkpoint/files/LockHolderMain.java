package air.checkpoint.files;

import air.runtime.api.CheckpointStore;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A run in another process, for {@link PeerLockTest}: claims {@code job}'s share of peer 0 in
 * {@code DIR}, prints {@code CLAIMED <run>} and holds the claim until it is killed or its input ends.
 */
public final class LockHolderMain {

    private LockHolderMain() {
    }

    @SuppressWarnings("try") // the claim is held for the block
    public static void main(String[] args) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(Path.of(args[0]), 3);
        try (CheckpointStore.Claim claim = store.claim(args[1], 0, 1)) {
            System.out.println("CLAIMED " + store.run());
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold until killed or told to end (input closed)
            }
        }
    }
}
