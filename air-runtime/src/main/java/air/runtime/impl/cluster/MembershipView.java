package air.runtime.impl.cluster;

import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * One numbered view of who is in the world, as pure data: the peers still members at view
 * {@code epoch} of a world of {@code world} ranks. View 0 holds every rank; each later view
 * removes peers and only ever grows the number. Everything a survivor decides about a loss (who
 * takes a share over, where replicas go) is a function of a view, so every peer holding the same
 * view decides the same.
 */
public record MembershipView(long epoch, int world, int[] members) {

    public MembershipView {
        members = members.clone();
        Arrays.sort(members);
        for (int i = 0; i < members.length; i++) {
            if (members[i] < 0 || members[i] >= world || i > 0 && members[i] == members[i - 1]) {
                throw new IllegalArgumentException("view " + epoch + ": member " + members[i] + " is not a distinct rank of a world of "
                        + world);
            }
        }
    }

    /** View 0: every rank of the world. */
    public static MembershipView initial(int world) {
        int[] all = new int[world];
        Arrays.setAll(all, i -> i);
        return new MembershipView(0, world, all);
    }

    public boolean contains(int peer) {
        return Arrays.binarySearch(members, peer) >= 0;
    }

    public int size() {
        return members.length;
    }

    /** The lowest-ranked member: the one that decides the next view while it is trusted. */
    public int lowest() {
        return members[0];
    }

    /** The next view: these peers removed, the number one higher. */
    public MembershipView without(Collection<Integer> removed) {
        return new MembershipView(epoch + 1, world, Arrays.stream(members).filter(p -> !removed.contains(p)).toArray());
    }

    /** The members of {@code older} that this view no longer holds, in rank order. */
    public List<Integer> removedSince(MembershipView older) {
        List<Integer> gone = new ArrayList<>();
        for (int p : older.members) {
            if (!contains(p)) {
                gone.add(p);
            }
        }
        return gone;
    }

    /** The first member after {@code peer} in ring order (the peer itself when it is the only member): who takes its share over. */
    public int hostAfter(int peer) {
        for (int k = 1; k <= world; k++) {
            int p = (peer + k) % world;
            if (contains(p)) {
                return p;
            }
        }
        throw new IllegalStateException("view " + epoch + " has no member");
    }

    /** The members in ring order starting after {@code peer} (not including it). */
    public List<Integer> membersAfter(int peer) {
        List<Integer> after = new ArrayList<>();
        for (int k = 1; k < world; k++) {
            int p = (peer + k) % world;
            if (contains(p)) {
                after.add(p);
            }
        }
        return after;
    }

    public void writeTo(WireOut out) {
        out.putLong(epoch).putInt(world).putInt(members.length);
        for (int m : members) {
            out.putInt(m);
        }
    }

    /** Reads a view written by {@link #writeTo}; a view of another world size, or garbage, is malformed naming the sender. */
    public static MembershipView readFrom(WireIn in, int world) {
        long epoch = in.getLong();
        int w = in.getInt();
        if (w != world) {
            throw in.malformed("a membership view of a world of " + w + " peers, this world has " + world);
        }
        int[] members = new int[in.getCount(4)];
        for (int i = 0; i < members.length; i++) {
            members[i] = in.getInt();
        }
        try {
            return new MembershipView(epoch, world, members);
        } catch (IllegalArgumentException e) {
            throw in.malformed(e.getMessage());
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MembershipView v && v.epoch == epoch && v.world == world && Arrays.equals(v.members, members);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(epoch) * 31 + Arrays.hashCode(members);
    }

    @Override
    public String toString() {
        return "view " + epoch + " " + Arrays.toString(members);
    }
}
