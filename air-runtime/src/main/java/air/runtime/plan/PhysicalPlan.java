package air.runtime.plan;

import java.util.List;

/**
 * A linear chain of vertices; vertex {@code i} feeds vertex {@code i + 1} through a shuffle.
 * Pure data: it names user functions but runs nothing.
 */
public record PhysicalPlan(List<VertexPlan> vertices) {

    public PhysicalPlan {
        vertices = List.copyOf(vertices);
        if (vertices.isEmpty()) {
            throw new IllegalArgumentException("a plan needs at least one vertex");
        }
        for (int i = 0; i < vertices.size(); i++) {
            VertexPlan v = vertices.get(i);
            boolean first = i == 0;
            boolean last = i == vertices.size() - 1;
            if (first != (v.head() instanceof HeadSpec.Source)) {
                throw new IllegalArgumentException("vertex " + i + ": only the first vertex has a source head");
            }
            if (last == v.feedsShuffle()) {
                throw new IllegalArgumentException("vertex " + i + ": only the last vertex ends in a sink");
            }
        }
    }

    /** The physical plan as text, one vertex a line, shuffles between them. */
    public String explain() {
        StringBuilder sb = new StringBuilder("physical plan: ").append(vertices.size()).append(" vertex(es)\n");
        for (VertexPlan v : vertices) {
            sb.append("  vertex ").append(v.id()).append(" x").append(v.parallelism()).append(": ").append(v.head().describe());
            for (OpSpec op : v.chain()) {
                sb.append("\n      -> ").append(op.describe());
            }
            sb.append("\n      -> ").append(v.tail().describe()).append('\n');
            if (v.tail() instanceof TailSpec.PartialWindow pw) {
                sb.append("  == shuffle ").append(pw.aggregation().routing())
                  .append(" (pre-aggregated partials per frame and key) ==>\n");
            }
        }
        return sb.toString();
    }
}
