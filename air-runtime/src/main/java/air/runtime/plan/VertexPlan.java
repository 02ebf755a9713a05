package air.runtime.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One fused vertex: a head, a chain of stateless operators and a tail (which may fork into
 * branches), run as {@code parallelism} tasklets, each on its own virtual thread. Records never
 * leave the tasklet inside a vertex.
 */
public record VertexPlan(int id, int parallelism, HeadSpec head, List<OpSpec> chain, TailSpec tail) {

    public VertexPlan {
        Objects.requireNonNull(head, "head");
        Objects.requireNonNull(tail, "tail");
        chain = List.copyOf(chain);
        if (parallelism < 1) {
            throw new IllegalArgumentException("vertex " + id + ": parallelism must be >= 1, was " + parallelism);
        }
    }

    /** Every tail of this vertex that feeds a shuffle edge (partial windows, exchanges), in every branch, in plan order. */
    public List<TailSpec.Shuffle> shuffleTails() {
        List<TailSpec.Shuffle> out = new ArrayList<>();
        collect(tail, out);
        return out;
    }

    private static void collect(TailSpec tail, List<TailSpec.Shuffle> out) {
        switch (tail) {
            case TailSpec.Shuffle s -> out.add(s);
            case TailSpec.Fork f -> f.branches().forEach(b -> collect(b.tail(), out));
            case TailSpec.Sink s -> { }
        }
    }
}
