package air.runtime.impl.exec;

import air.runtime.api.CheckpointedSourceReader;
import air.runtime.api.SourceReader;
import air.runtime.operator.Rescale;
import air.wire.WireIn;
import air.wire.WireOut;

/**
 * How a source instance's reader position goes into its checkpoint part and comes back: a plain
 * number with the earlier layouts it resumed after ({@link NumberedReaderState}), or the opaque
 * state of a {@link CheckpointedSourceReader} ({@link OpaqueReaderState}). Chosen once per reader.
 * The source's {@code finished} byte precedes what this writes.
 */
interface ReaderState {

    static ReaderState of(SourceReader<?> reader) {
        return reader instanceof CheckpointedSourceReader<?> opaque ? new OpaqueReaderState(opaque) : new NumberedReaderState(reader);
    }

    /** Writes the reader's state for checkpoint {@code checkpointId} (0: its last, as it ended). */
    void write(WireOut head, long checkpointId);

    /** A restart or takeover of the same layout: back to the state {@link #write} wrote. */
    void restore(WireIn head);

    /**
     * A restore onto another layout: every earlier instance's newest head state (each beginning
     * with its finished byte) is in {@code rescale}.
     *
     * @throws UnsupportedOperationException when the reader cannot split or merge its positions
     */
    void restoreRescaled(Rescale rescale, String source);

    /** The newest head state of earlier instance {@code i}, past its finished byte; fails naming the source when it saved none. */
    static WireIn headOf(Rescale rescale, int i, String source) {
        var states = rescale.states(i);
        if (states == null) {
            throw new IllegalStateException("source " + source + ": instance " + i + " of the layout that wrote checkpoint "
                    + rescale.checkpoint() + " saved no position (of " + rescale.instancesBefore() + "): the checkpoint is incomplete");
        }
        WireIn in = states.get(states.size() - 1); // the head's state is whole in every checkpoint: the newest is its state
        in.getByte();
        return in;
    }
}
