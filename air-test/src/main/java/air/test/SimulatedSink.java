package air.test;

import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import air.wire.WireIn;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The exactly-once collecting sink of {@link SimulatedPeers}: each writer keeps its rows in its
 * snapshot (as a durable sink keeps what it committed), so a restore — after a restart from a
 * checkpoint, or on the peer that took a lost peer's share over — continues from exactly the rows
 * of that snapshot; a writer that closes hands its rows to the simulation, one that aborts (its
 * peer failed) hands over nothing.
 */
final class SimulatedSink<T> implements SinkFactory<T> {

    private final Function<? super T, String> row;
    private final Consumer<List<String>> closed;

    SimulatedSink(Function<? super T, String> row, Consumer<List<String>> closed) {
        this.row = row;
        this.closed = closed;
    }

    @Override
    public String describe() {
        return "air-test simulated sink";
    }

    @Override
    public SinkWriter<T> open(int instance, int parallelism) {
        List<String> rows = new ArrayList<>();
        return new CheckpointedSinkWriter<>() {
            @Override
            public void write(T item) {
                rows.add(row.apply(item));
            }

            @Override
            public byte[] snapshot(long checkpointId) {
                WireOut out = new WireOut(64 + 16 * rows.size());
                out.putInt(rows.size());
                for (String r : rows) {
                    out.putString(r);
                }
                return out.toBytes();
            }

            @Override
            public void restore(byte[] state) {
                rows.clear();
                WireIn in = new WireIn(ByteBuffer.wrap(state), -1);
                for (int n = in.getInt(); n > 0; n--) {
                    rows.add(in.getString());
                }
            }

            @Override
            public void close() {
                closed.accept(List.copyOf(rows));
            }
        };
    }
}
