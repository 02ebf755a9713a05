package air.runtime.plan;

/**
 * A shuffle from a tail of vertex {@code from} (a window's partial half or an exchange) to input
 * {@code input} of vertex {@code to}. Every instance of {@code from} is one producer of that
 * input; the producers of all edges into one vertex share one numbering, edge by edge in the
 * order of {@link PhysicalPlan#edgesInto}.
 */
public record ShuffleEdge(int id, int from, int to, int input) {
}
