package air.runtime.impl.checkpoint;

import air.runtime.CheckpointMismatchException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which saved operator states a (possibly changed) pipeline resumes: an operator gets the state
 * saved under its id when that state was saved by an operator like it (the same descriptor) and,
 * for a vertex's head, when every operator feeding it resumes too (its edge state counts what they
 * sent). Everything else starts empty ({@link #startEmpty}), and saved state that no operator takes
 * is {@link #dropped}. Refused, with {@link CheckpointMismatchException}: an operator the user
 * named whose saved state is of another shape (a changed key type, window or aggregation: its
 * state would be garbage), and a checkpoint none of whose state fits this pipeline at all
 * (another pipeline under the same job name) — the caller decides whether starting afresh was asked for.
 */
public final class StateMatch {

    private final Set<String> resumed;
    private final List<String> startEmpty;
    private final List<String> dropped;
    private final List<String> changed;

    private StateMatch(Set<String> resumed, List<String> startEmpty, List<String> dropped, List<String> changed) {
        this.resumed = resumed;
        this.startEmpty = startEmpty;
        this.dropped = dropped;
        this.changed = changed;
    }

    /**
     * Matches this pipeline's {@code operators} against the {@code saved} ids and descriptors of
     * the checkpoint {@code where} names (job, checkpoint, directory) for the messages.
     */
    public static StateMatch of(List<OperatorId> operators, Map<String, String> saved, String where) {
        Set<String> resumed = new LinkedHashSet<>();
        List<String> startEmpty = new ArrayList<>();
        List<String> refusals = new ArrayList<>();
        List<String> reused = new ArrayList<>();
        for (OperatorId op : operators) {
            String was = saved.get(op.id());
            if (was == null) {
                startEmpty.add(op.id() + " (new)");
            } else if (was.equals(op.descriptor())) {
                resumed.add(op.id());
            } else if (op.named()) {
                refusals.add(op.id() + " (" + op.shown() + "): saved as [" + was + "], now [" + op.descriptor() + "]");
            } else {
                startEmpty.add(op.id() + " (another operator than the one saved there)");
                reused.add(op.id() + ": saved [" + was + "], now [" + op.descriptor() + "]");
            }
        }
        if (!refusals.isEmpty()) {
            throw new CheckpointMismatchException(where + " holds state of named operator(s) that changed shape, which this run cannot "
                    + "restore without reading garbage: " + String.join("; ", refusals) + ". Give a changed stage a new name (named(...)) "
                    + "to start it empty, run the pipeline that wrote the checkpoint, or start afresh on purpose "
                    + "(JobConfig.startAfresh(true), './air ... --fresh')");
        }
        boolean changed = true;
        while (changed) { // a head resumes only with every operator that feeds it: its edge state counts what they sent
            changed = false;
            for (OperatorId op : operators) {
                if (resumed.contains(op.id()) && !resumed.containsAll(op.inputs())) {
                    resumed.remove(op.id());
                    startEmpty.add(op.id() + " (what feeds it starts empty)");
                    changed = true;
                }
            }
        }
        List<String> dropped = new ArrayList<>();
        Set<String> now = new LinkedHashSet<>();
        operators.forEach(op -> now.add(op.id()));
        for (String id : saved.keySet()) {
            if (!resumed.contains(id)) {
                dropped.add(id + (now.contains(id) ? " (not resumed, see above)" : " (no such operator any more)"));
            }
        }
        return new StateMatch(resumed, startEmpty, dropped, reused);
    }

    /** The ids whose state the run restores. */
    public Set<String> resumed() {
        return resumed;
    }

    /** Stateful operators of this pipeline without saved state, each with why. */
    public List<String> startEmpty() {
        return startEmpty;
    }

    /** Saved states no operator of this pipeline takes, each with why. */
    public List<String> dropped() {
        return dropped;
    }

    /** The unnamed operators whose id was saved by another operator: {@code id: saved [...], now [...]}. */
    public List<String> changed() {
        return changed;
    }

    /** Nothing saved fits: the checkpoint is of another pipeline under this job name. */
    public boolean nothingMatches() {
        return resumed.isEmpty();
    }
}
