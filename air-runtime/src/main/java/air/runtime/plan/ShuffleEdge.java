package air.runtime.plan;

/**
 * A shuffle from a partial window tail of vertex {@code from} to input {@code input} of vertex
 * {@code to}. Every instance of {@code from} is one producer of that input; the producers of all
 * edges into one vertex share one numbering, edge by edge ({@link PhysicalPlan#slotOf}).
 */
public record ShuffleEdge(int id, int from, int to, int input) {
}
