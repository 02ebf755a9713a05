package air.runtime.impl.exec;

import air.runtime.api.CheckpointedSourceReader;
import air.runtime.operator.Rescale;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.List;

/** The opaque state of a {@link CheckpointedSourceReader}: split positions, offsets, whatever it keeps. */
final class OpaqueReaderState implements ReaderState {

    private final CheckpointedSourceReader<?> reader;

    OpaqueReaderState(CheckpointedSourceReader<?> reader) {
        this.reader = reader;
    }

    @Override
    public void write(WireOut head, long checkpointId) {
        head.putBytes(reader.snapshotState(checkpointId));
    }

    @Override
    public void restore(WireIn head) {
        reader.restoreState(head.getBytes());
    }

    @Override
    public void restoreRescaled(Rescale rescale, String source) {
        List<byte[]> earlier = new ArrayList<>(rescale.instancesBefore());
        for (int i = 0; i < rescale.instancesBefore(); i++) {
            earlier.add(ReaderState.headOf(rescale, i, source).getBytes());
        }
        reader.restoreRescaled(rescale.checkpoint(), earlier);
    }
}
