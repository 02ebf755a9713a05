package air.runtime.impl.shuffle;

/** The sending end of a shuffle edge, as one upstream instance sees it. May park when full. */
public interface ShuffleOutput {

    int producer();

    int destinations();

    void send(int destination, ShuffleItem item);

    /** The producer was restored from checkpoint {@code id} (replication tags what it logs with it). */
    default void restoredAt(long id) {
    }

    default void broadcast(ShuffleItem item) {
        for (int d = 0; d < destinations(); d++) {
            send(d, item);
        }
    }
}
