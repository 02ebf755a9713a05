package air.runtime.impl.exec;

import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.ShuffleEdge;
import air.runtime.plan.VertexPlan;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * How the producers of a vertex are numbered: the producers of all edges into a vertex share one
 * numbering, edge by edge in {@link PhysicalPlan#edgesInto} order, each edge's producers being
 * its source vertex's instances on every peer ({@code peers * parallelism}, by global instance).
 * Alignment, repeat filtering and end counting use these numbers; progress is per input, from
 * {@link #inputBase}. Pure arithmetic over the plan, the same on every peer.
 */
final class ProducerNumbering {

    private final PhysicalPlan plan;
    private final int peers;

    ProducerNumbering(PhysicalPlan plan, int peers) {
        this.plan = plan;
        this.peers = peers;
    }

    /** Instances of {@code v} over all peers. */
    int globalParallelism(VertexPlan v) {
        return peers * v.parallelism();
    }

    /** The number of edge {@code e}'s first producer among all producers of the vertex it feeds. */
    int base(ShuffleEdge e) {
        int base = 0;
        for (ShuffleEdge before : plan.edgesInto(e.to())) {
            if (before.id() == e.id()) {
                return base;
            }
            base += globalParallelism(plan.vertices().get(before.from()));
        }
        throw new IllegalStateException("shuffle " + e.id() + " is not an edge into vertex " + e.to());
    }

    /** How many producers feed each input of {@code v}. */
    int[] perInput(VertexPlan v) {
        int[] n = new int[v.head().inputs()];
        for (ShuffleEdge e : plan.edgesInto(v.id())) {
            n[e.input()] += globalParallelism(plan.vertices().get(e.from()));
        }
        return n;
    }

    /** The number of input {@code input}'s first producer among all producers of {@code vertex}. */
    int inputBase(int vertex, int input) {
        int[] n = perInput(plan.vertices().get(vertex));
        int base = 0;
        for (int i = 0; i < input; i++) {
            base += n[i];
        }
        return base;
    }

    /**
     * Producers of vertex {@code vertex} by their numbers there, each named by its global instance,
     * the peer it lives on in cluster mode ({@code hostOfBlock}: where a peer block runs now) and,
     * when several edges feed the vertex, the input and vertex it comes from: "[2 (peer 1)]",
     * "[input 1: 3 of vertex 0]".
     */
    String describe(int vertex, int[] producers, IntUnaryOperator hostOfBlock) {
        List<ShuffleEdge> in = plan.edgesInto(vertex);
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < producers.length; i++) {
            int p = producers[i];
            ShuffleEdge edge = in.get(in.size() - 1);
            for (ShuffleEdge e : in) {
                if (p < base(e) + globalParallelism(plan.vertices().get(e.from()))) {
                    edge = e;
                    break;
                }
            }
            int g = p - base(edge);
            sb.append(i == 0 ? "" : ", ");
            if (in.size() > 1) {
                sb.append("input ").append(edge.input()).append(": ").append(g).append(" of vertex ").append(edge.from());
            } else {
                sb.append(g);
            }
            if (peers > 1) {
                sb.append(" (peer ").append(hostOfBlock.applyAsInt(g / plan.vertices().get(edge.from()).parallelism())).append(')');
            }
        }
        return sb.append(']').toString();
    }
}
