package air.runtime.plan;

import java.util.List;
import java.util.Objects;

/**
 * One fused vertex: a head, a chain of stateless operators and a tail, run as {@code parallelism}
 * tasklets, each on its own virtual thread. Records never leave the tasklet inside a vertex.
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

    public boolean feedsShuffle() {
        return tail instanceof TailSpec.PartialWindow;
    }
}
