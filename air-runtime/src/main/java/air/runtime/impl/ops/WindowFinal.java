package air.runtime.impl.ops;

import air.runtime.plan.OperatorInfo;

/** The final window operator as its tasklet and the meters see it. */
public interface WindowFinal {

    /** Handles one shuffle item; true once every producer ended and all output is flushed. */
    boolean onItem(ShuffleItem item);

    long results();

    /** The length of one epoch (the window's slide): producers release credit epoch by epoch. */
    long slide();

    OperatorInfo info();

    /** The latest published view of what this instance waits for; safe to read from any thread. */
    ProgressSnapshot snapshot();
}
