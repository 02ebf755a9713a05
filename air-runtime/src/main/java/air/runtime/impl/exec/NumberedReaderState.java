package air.runtime.impl.exec;

import air.runtime.api.SourceReader;
import air.runtime.operator.Rescale;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.List;

/**
 * A reader whose position is one number ({@link SourceReader#position}), with the layouts it
 * resumed after: each earlier layout's positions, oldest first, kept so that a later restore onto
 * yet another layout still knows what every one of them emitted.
 */
final class NumberedReaderState implements ReaderState {

    private final SourceReader<?> reader;
    /** The layouts this job ran on before the checkpoint it resumed from onto another one, oldest first; empty when none. */
    private List<long[]> earlier = List.of();

    NumberedReaderState(SourceReader<?> reader) {
        this.reader = reader;
    }

    @Override
    public void write(WireOut head, long checkpointId) {
        head.putLong(reader.position()).putInt(earlier.size());
        for (long[] layout : earlier) {
            head.putInt(layout.length);
            for (long p : layout) {
                head.putLong(p);
            }
        }
    }

    @Override
    public void restore(WireIn head) {
        long position = head.getLong();
        earlier = readLayouts(head);
        if (!earlier.isEmpty()) {
            reader.resumeAfter(earlier);
        }
        reader.seek(position);
    }

    /**
     * The earlier layouts stay as the saved ones knew them, and the layout that saved the
     * checkpoint joins them with its readers' positions; the reader emits its share of what none
     * of them emitted.
     */
    @Override
    public void restoreRescaled(Rescale rescale, String source) {
        long[] positions = new long[rescale.instancesBefore()];
        List<long[]> before = null;
        for (int i = 0; i < positions.length; i++) {
            WireIn in = ReaderState.headOf(rescale, i, source);
            positions[i] = in.getLong();
            List<long[]> layouts = readLayouts(in);
            before = before == null ? layouts : before;
        }
        List<long[]> all = new ArrayList<>(before);
        all.add(positions);
        earlier = List.copyOf(all);
        reader.resumeAfter(earlier);
    }

    private static List<long[]> readLayouts(WireIn in) {
        int n = in.getCount(4);
        List<long[]> layouts = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            long[] positions = new long[in.getCount(8)];
            for (int i = 0; i < positions.length; i++) {
                positions[i] = in.getLong();
            }
            layouts.add(positions);
        }
        return layouts;
    }
}
