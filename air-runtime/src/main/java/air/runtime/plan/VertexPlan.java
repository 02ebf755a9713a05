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

    /** Every partial window tail of this vertex, in every branch, in plan order. */
    public List<TailSpec.PartialWindow> partialTails() {
        List<TailSpec.PartialWindow> out = new ArrayList<>();
        collect(tail, out);
        return out;
    }

    private static void collect(TailSpec tail, List<TailSpec.PartialWindow> out) {
        switch (tail) {
            case TailSpec.PartialWindow pw -> out.add(pw);
            case TailSpec.Fork f -> f.branches().forEach(b -> collect(b.tail(), out));
            case TailSpec.Sink s -> { }
        }
    }
}
