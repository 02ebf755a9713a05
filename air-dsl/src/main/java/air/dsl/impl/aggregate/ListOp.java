package air.dsl.impl.aggregate;

import air.runtime.api.AggregateOp;
import air.runtime.api.Codec;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects a window's records in a list, for functions over the elements (a co-group). The list
 * keeps every record until the window fires: state grows with the window's records. With an
 * element codec the lists can travel between peers and into checkpoints.
 */
public final class ListOp<T> implements AggregateOp<T, ArrayList<T>, List<T>> {

    private final Codec<ArrayList<T>> codec;

    public ListOp(Codec<T> elements) {
        this.codec = elements == null ? null : new Codec<>() {
            @Override
            public void write(ArrayList<T> list, WireOut out) {
                out.putInt(list.size());
                for (T t : list) {
                    elements.write(t, out);
                }
            }

            @Override
            public ArrayList<T> read(WireIn in) {
                int n = in.getCount(1);
                ArrayList<T> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    list.add(elements.read(in));
                }
                return list;
            }
        };
    }

    @Override public ArrayList<T> create() { return new ArrayList<>(); }

    @Override public void accumulate(ArrayList<T> acc, T item) { acc.add(item); }

    @Override public void combine(ArrayList<T> acc, ArrayList<T> other) { acc.addAll(other); }

    @Override public List<T> finish(ArrayList<T> acc) { return List.copyOf(acc); }

    @Override public String name() { return "toList"; }

    @Override public Codec<ArrayList<T>> accumulatorCodec() { return codec; }
}
