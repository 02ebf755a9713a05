package air.runtime.impl.exec;

import air.runtime.impl.ops.WindowFinal;
import air.runtime.impl.ops.ShuffleItem;

/** Drains a shuffle inbox into the final half of a window aggregation until every producer ended. */
final class FinalTasklet extends Tasklet {

    private final Inbox inbox;
    private final WindowFinal head;
    private long taken;

    FinalTasklet(JobContext job, String name, Inbox inbox, WindowFinal head) {
        super(job, name);
        this.inbox = inbox;
        this.head = head;
    }

    @Override
    protected void runBody() {
        boolean done = false;
        while (!done) {
            ShuffleItem item = (ShuffleItem) inbox.take();
            taken++;
            done = head.onItem(item);
        }
    }

    @Override
    protected String position() {
        return "shuffle item #" + taken;
    }
}
