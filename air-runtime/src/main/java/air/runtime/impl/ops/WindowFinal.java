package air.runtime.impl.ops;

import air.hewmeld.watermark.LowWatermarkTracker;
import air.runtime.plan.OperatorInfo;

/** The final window operator as its tasklet and the meters see it. */
public interface WindowFinal {

    /** Handles one shuffle item; true once every producer ended and all output is flushed. */
    boolean onItem(ShuffleItem item);

    long results();

    OperatorInfo info();

    LowWatermarkTracker progress();
}
