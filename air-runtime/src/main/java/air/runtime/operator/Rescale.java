package air.runtime.operator;

import air.wire.WireIn;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What one instance of an operator restores when the job resumes onto another layout (another
 * number of peers or workers): the states every instance of the earlier layout saved, indexed by
 * its global instance (each a whole state and the changes after it, oldest first; null where an
 * instance saved none), and which instance of how many this one is now.
 *
 * <p>Keyed state (final windows) is split by who owns each key or window now: every instance reads
 * every earlier state and keeps its share. Unkeyed state (a partial window's open frames, a sink's
 * output, a source's position) is not split: earlier instance {@code i} goes whole to instance
 * {@code i mod instances} ({@link #takes}), which merges what it takes. Progress (watermarks) is
 * restored as the lowest of every earlier instance, so that nothing an earlier instance had not
 * yet passed arrives late. {@code checkpoint} is the checkpoint resumed from: the same for every
 * instance of the new layout, and another for every restore onto a layout (what an operator can
 * name new files after).
 */
public record Rescale(int instance, int instances, List<List<WireIn>> before, long checkpoint) {

    public Rescale {
        if (instance < 0 || instance >= instances) {
            throw new IllegalArgumentException("instance " + instance + " of " + instances);
        }
        before = Collections.unmodifiableList(new ArrayList<>(before));
    }

    /** How many instances the earlier layout had. */
    public int instancesBefore() {
        return before.size();
    }

    /** Whether this instance takes earlier instance {@code earlier}'s unkeyed state. */
    public boolean takes(int earlier) {
        return earlier % instances == instance;
    }

    /** Earlier instance {@code earlier}'s states (whole, then changes), or null when it saved none. */
    public List<WireIn> states(int earlier) {
        return before.get(earlier);
    }

    /**
     * Earlier instance {@code earlier}'s newest state, for an operator that writes its whole state
     * in every checkpoint (so the newest is all of it); null when it saved none.
     */
    public WireIn newest(int earlier) {
        List<WireIn> states = before.get(earlier);
        return states == null ? null : states.get(states.size() - 1);
    }

    /** For messages: {@code "instance 1 of 4 (from 2 before)"}. */
    @Override
    public String toString() {
        return "instance " + instance + " of " + instances + " (from " + before.size() + " before)";
    }
}
