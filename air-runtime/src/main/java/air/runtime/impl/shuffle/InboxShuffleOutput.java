package air.runtime.impl.shuffle;


/** A shuffle edge inside one JVM: items go straight into the destinations' inboxes. */
public final class InboxShuffleOutput implements ShuffleOutput {

    private final int producer;
    private final Inbox[] destinations;

    public InboxShuffleOutput(int producer, Inbox[] destinations) {
        this.producer = producer;
        this.destinations = destinations;
    }

    @Override
    public int producer() {
        return producer;
    }

    @Override
    public int destinations() {
        return destinations.length;
    }

    @Override
    public void send(int destination, ShuffleItem item) {
        destinations[destination].offer(item);
    }
}
