package air.runtime.plan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A dataflow of fused vertices joined by shuffle edges; edges only go from a lower vertex id to a
 * higher one, so the vertices are in topological order and the plan has no cycle. Pure data: it
 * names user functions but runs nothing.
 */
public record PhysicalPlan(List<VertexPlan> vertices, List<ShuffleEdge> edges) {

    /** A plan of one vertex or of vertices without shuffles between them. */
    public PhysicalPlan(List<VertexPlan> vertices) {
        this(vertices, List.of());
    }

    public PhysicalPlan {
        vertices = List.copyOf(vertices);
        edges = List.copyOf(edges);
        if (vertices.isEmpty()) {
            throw new IllegalArgumentException("a plan needs at least one vertex");
        }
        for (int i = 0; i < vertices.size(); i++) {
            if (vertices.get(i).id() != i) {
                throw new IllegalArgumentException("vertex " + i + " has id " + vertices.get(i).id());
            }
        }
        int[] used = new int[edges.size()];
        for (int e = 0; e < edges.size(); e++) {
            ShuffleEdge edge = edges.get(e);
            if (edge.id() != e) {
                throw new IllegalArgumentException("shuffle " + e + " has id " + edge.id());
            }
            if (edge.from() >= edge.to() || edge.to() >= vertices.size()) {
                throw new IllegalArgumentException("shuffle " + e + " goes from vertex " + edge.from() + " to vertex " + edge.to()
                        + ": edges must go forward (a cycle, or a vertex that does not exist)");
            }
            int inputs = vertices.get(edge.to()).head().inputs();
            if (edge.input() < 0 || edge.input() >= inputs) {
                throw new IllegalArgumentException("shuffle " + e + " feeds input " + edge.input() + " of vertex " + edge.to()
                        + ", which has " + inputs);
            }
        }
        for (VertexPlan v : vertices) {
            for (TailSpec.Shuffle pw : v.shuffleTails()) {
                if (pw.edge() < 0 || pw.edge() >= edges.size() || edges.get(pw.edge()).from() != v.id()) {
                    throw new IllegalArgumentException("vertex " + v.id() + ": " + pw.info() + " feeds shuffle " + pw.edge()
                            + ", which does not leave this vertex");
                }
                used[pw.edge()]++;
                HeadSpec to = vertices.get(edges.get(pw.edge()).to()).head();
                boolean toExchange = to instanceof HeadSpec.Exchange || to instanceof HeadSpec.KeyedProcess;
                if (toExchange != pw instanceof TailSpec.Exchange) {
                    throw new IllegalArgumentException("vertex " + v.id() + ": " + pw.info() + " feeds shuffle " + pw.edge() + " into "
                            + vertices.get(edges.get(pw.edge()).to()).head().info() + ": an exchange feeds an exchange's receiving end"
                            + " or a process function, a window's partial half a window operator");
                }
            }
            for (int input = 0; input < v.head().inputs(); input++) {
                if (edgesInto(edges, v.id(), input).isEmpty()) {
                    throw new IllegalArgumentException("vertex " + v.id() + ": input " + input + " of " + v.head().info()
                            + " has no shuffle feeding it");
                }
            }
        }
        for (int e = 0; e < used.length; e++) {
            if (used[e] != 1) {
                throw new IllegalArgumentException("shuffle " + e + " is fed by " + used[e] + " tails, not one");
            }
        }
    }

    private static List<ShuffleEdge> edgesInto(List<ShuffleEdge> edges, int vertex, int input) {
        List<ShuffleEdge> out = new ArrayList<>();
        for (ShuffleEdge e : edges) {
            if (e.to() == vertex && (input < 0 || e.input() == input)) {
                out.add(e);
            }
        }
        out.sort(Comparator.comparingInt(ShuffleEdge::input).thenComparingInt(ShuffleEdge::id));
        return out;
    }

    /** The edges into {@code vertex}, by input then id: the order their producers are numbered in. */
    public List<ShuffleEdge> edgesInto(int vertex) {
        return edgesInto(edges, vertex, -1);
    }

    /** The physical plan as text: one vertex a block, its chain and branches indented, then the shuffles. */
    public String explain() {
        StringBuilder sb = new StringBuilder("physical plan: ").append(vertices.size()).append(" vertex(es), ")
                .append(edges.size()).append(" shuffle(s)\n");
        for (VertexPlan v : vertices) {
            sb.append("  vertex ").append(v.id()).append(" x").append(v.parallelism()).append(": ").append(v.head().describe());
            if (v.head().inputs() > 0) {
                sb.append("\n      <- ");
                List<ShuffleEdge> in = edgesInto(v.id());
                for (int i = 0; i < in.size(); i++) {
                    sb.append(i == 0 ? "" : ", ").append("input ").append(in.get(i).input()).append(": shuffle ").append(in.get(i).id())
                      .append(" from vertex ").append(in.get(i).from());
                }
            }
            describe(sb, v.chain(), v.tail(), "      ");
            sb.append('\n');
        }
        for (ShuffleEdge e : edges) {
            sb.append("  == shuffle ").append(e.id()).append(": vertex ").append(e.from()).append(" -> vertex ").append(e.to())
              .append(" input ").append(e.input()).append(", ");
            switch (tailOf(e)) {
                case TailSpec.PartialWindow pw -> sb.append(pw.aggregation().routing()).append(" (pre-aggregated partials per frame and key)");
                case TailSpec.Exchange x -> sb.append(x.spread()).append(" (records with their times, low watermarks)");
            }
            sb.append(" ==\n");
        }
        return sb.toString();
    }

    private static void describe(StringBuilder sb, List<OpSpec> chain, TailSpec tail, String indent) {
        for (OpSpec op : chain) {
            sb.append('\n').append(indent).append("-> ").append(op.describe());
        }
        sb.append('\n').append(indent).append("-> ").append(tail.describe());
        if (tail instanceof TailSpec.Fork f) {
            for (int b = 0; b < f.branches().size(); b++) {
                sb.append('\n').append(indent).append("   branch ").append(b + 1).append(':');
                describe(sb, f.branches().get(b).chain(), f.branches().get(b).tail(), indent + "     ");
            }
        }
    }

    /** The tail that feeds {@code edge}. */
    public TailSpec.Shuffle tailOf(ShuffleEdge edge) {
        for (TailSpec.Shuffle t : vertices.get(edge.from()).shuffleTails()) {
            if (t.edge() == edge.id()) {
                return t;
            }
        }
        throw new IllegalStateException("no tail feeds shuffle " + edge.id());
    }
}
