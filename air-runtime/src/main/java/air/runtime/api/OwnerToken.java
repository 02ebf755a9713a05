package air.runtime.api;

/**
 * Who may write a sink instance's output now: the world it runs in (when that world formed, by its
 * rank 0's clock) and the membership view under which it got the instance (0 for a peer's own
 * instances, the takeover's view for adopted ones). A sink whose output outlives the process (files)
 * records the token beside the output and refuses to write once a newer owner of the same world
 * claimed it — a fencing token: a peer that was declared lost and taken over can no longer write,
 * even if it has not noticed yet.
 */
public record OwnerToken(long world, long view) {

    /** Whether this token supersedes {@code other}: the same world, a later view. */
    public boolean newerThan(OwnerToken other) {
        return world == other.world && view > other.view;
    }

    @Override
    public String toString() {
        return "owner (world " + world + ", view " + view + ")";
    }
}
