package air.runtime.impl.checkpoint;

/**
 * How a tasklet's part of a checkpoint is named: {@code v<vertex>/<global instance>}. One place,
 * because replication reads the instance back to know which blocks a snapshot covers.
 */
public final class PartNames {

    private PartNames() {
    }

    public static String of(int vertex, int globalInstance) {
        return "v" + vertex + "/" + globalInstance;
    }

    /** The vertex a part name belongs to. */
    public static int vertexOf(String part) {
        int slash = part.lastIndexOf('/');
        if (!part.startsWith("v") || slash < 0) {
            throw new IllegalArgumentException("not a checkpoint part name: '" + part + "'");
        }
        return Integer.parseInt(part.substring(1, slash));
    }

    /** The global instance a part name belongs to. */
    public static int instanceOf(String part) {
        int slash = part.lastIndexOf('/');
        if (!part.startsWith("v") || slash < 0) {
            throw new IllegalArgumentException("not a checkpoint part name: '" + part + "'");
        }
        return Integer.parseInt(part.substring(slash + 1));
    }
}
