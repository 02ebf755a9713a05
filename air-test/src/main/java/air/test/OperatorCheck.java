package air.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.function.Supplier;

/**
 * Replays one {@link OperatorScript} on an operator in every way the engine may drive it and
 * asserts the output never changes (Jet's {@code TestSupport} "snapshot after every item" mode,
 * and more): straight under watermarks (the reference); with a whole snapshot and a fresh instance
 * restored from it before each single step; with that before every step of one run; incrementally
 * (a whole snapshot, then {@code snapshotChangesTo} at each step up to the restore) when the
 * operator writes changes; under hew-meld (epochs completed in a seeded order before each progress
 * step), straight and restored at every step; and onto other layouts ({@link #rescale}).
 *
 * <p>In the replays on one instance it also asserts that nothing is emitted below an
 * {@link air.runtime.operator.Operator#outputProgress} the operator gave before (what the engine
 * forwards downstream as the output's progress).
 *
 * <p>Outputs are compared step by step: what the operator emitted in each step (and at the end of
 * input) must be the same multiset of {@code item@time} in every replay. The order within one step
 * may differ (a window's keys come out of a hash map), the step that emits a result may not.
 *
 * <pre>{@code
 * List<Emitted> out = OperatorCheck.of((o, i, n) -> newOperator(o, i, n), () -> script(seed))
 *         .hewMeld(10, 0)
 *         .rescale(2, 1, (input, item, n) -> ownerOf(item, n))
 *         .verify();
 * assertThat(out).map(Emitted::toString).containsExactlyInAnyOrderElementsOf(reference(seed));
 * }</pre>
 */
public final class OperatorCheck {

    /** Which instance of {@code instances} an item goes to: what the shuffle in front of the operator does (rescale checks). */
    @FunctionalInterface
    public interface Router {
        int instanceOf(int input, Object item, int instances);
    }

    private record Layout(int before, int after, Router router) { }

    private final OperatorHarness.Factory factory;
    private final Supplier<OperatorScript> script;
    private final List<Layout> layouts = new ArrayList<>();
    private long epochLength;
    private long firstEpoch;
    private long seed = 1;
    private boolean incrementalChecked;

    private OperatorCheck(OperatorHarness.Factory factory, Supplier<OperatorScript> script) {
        this.factory = factory;
        this.script = script;
    }

    /** Checks the operators {@code factory} builds on the scripts {@code script} builds (a fresh, equal one per replay). */
    public static OperatorCheck of(OperatorHarness.Factory factory, Supplier<OperatorScript> script) {
        return new OperatorCheck(factory, script);
    }

    /** Also replays under hew-meld with epochs of {@code epochLength} from {@code firstEpoch} (the window's slide, say). */
    public OperatorCheck hewMeld(long epochLength, long firstEpoch) {
        this.epochLength = epochLength;
        this.firstEpoch = firstEpoch;
        return this;
    }

    /** The seed of the hew-meld epoch orders (default 1). */
    public OperatorCheck seed(long seed) {
        this.seed = seed;
        return this;
    }

    /**
     * Also replays on {@code before} instances, items routed by {@code router}, and at every step
     * restores {@code after} fresh instances from all their snapshots ({@code restoreRescaled}) to
     * play the rest: the output of all instances together must be the reference.
     */
    public OperatorCheck rescale(int before, int after, Router router) {
        layouts.add(new Layout(before, after, router));
        return this;
    }

    /** Whether the last {@link #verify} found the operator writing changes, and so checked incremental snapshots. */
    public boolean checkedIncremental() {
        return incrementalChecked;
    }

    /** Runs every replay, asserting each gives the reference output; returns the reference (the straight run's output, in order). */
    public List<Emitted> verify() {
        List<Emitted> all = new ArrayList<>();
        List<List<String>> reference = play(false, 0, k -> false, all);
        int n = script.get().steps().size();
        for (int k = 0; k <= n; k++) {
            int at = k;
            assertThat(play(false, 0, i -> i == at, null)).as("a snapshot and a fresh instance restored from it before step " + k)
                    .isEqualTo(reference);
        }
        assertThat(play(false, 0, i -> true, null)).as("a snapshot and restore before every step").isEqualTo(reference);
        incrementalChecked = false;
        for (int k = 1; k <= n; k++) {
            List<List<String>> out = playIncremental(k / 2, k);
            if (out == null) {
                break;
            }
            incrementalChecked = true;
            assertThat(out).as("a whole snapshot before step " + k / 2 + ", changes before each step up to " + k
                    + " and a fresh instance restored from them all before step " + k).isEqualTo(reference);
        }
        if (epochLength > 0) {
            for (long s = seed; s < seed + 2; s++) {
                assertThat(play(true, s, i -> false, null)).as("hew-meld, epoch order seed " + s).isEqualTo(reference);
                assertThat(play(true, s, i -> true, null)).as("hew-meld, epoch order seed " + s + ", restored before every step")
                        .isEqualTo(reference);
            }
        }
        for (Layout layout : layouts) {
            for (int k = 0; k <= n; k++) {
                assertThat(playRescaled(layout, k)).as("from " + layout.before() + " instance(s) to " + layout.after()
                        + " before step " + k).isEqualTo(reference);
            }
        }
        return all;
    }

    /** One replay on one instance; {@code restoreBefore}: before which steps (n: before the end) to snapshot and restore. */
    private List<List<String>> play(boolean hewMeld, long epochSeed, IntPredicate restoreBefore, List<Emitted> all) {
        List<OperatorScript.Step> steps = script.get().steps();
        OperatorHarness h = OperatorHarness.of(factory);
        if (hewMeld) {
            h.hewMeld(epochLength, firstEpoch, epochSeed);
        }
        List<List<String>> out = new ArrayList<>();
        long promised = Long.MIN_VALUE;
        for (int k = 0; k <= steps.size(); k++) {
            if (restoreBefore.test(k)) {
                h.snapshotAndRestore();
            }
            if (k < steps.size()) {
                steps.get(k).play(h);
            } else {
                h.endOfInput();
            }
            List<Emitted> emitted = h.takeOutput();
            for (Emitted e : emitted) {
                if (e.timestamp() != HarnessOutput.NO_TIMESTAMP && e.timestamp() < promised) {
                    throw new AssertionError("step " + k + " emitted " + e + " below the outputProgress " + promised
                            + " the operator had already promised");
                }
            }
            if (h.completeBelow() != Long.MIN_VALUE && k < steps.size()) {
                promised = Math.max(promised, h.outputProgress());
            }
            out.add(step(emitted, all));
        }
        return out;
    }

    /** Incremental: a whole snapshot before step {@code whole}, changes before each later step up to {@code restore}; null: none written. */
    private List<List<String>> playIncremental(int whole, int restore) {
        List<OperatorScript.Step> steps = script.get().steps();
        OperatorHarness h = OperatorHarness.of(factory);
        List<List<String>> out = new ArrayList<>();
        byte[] base = null;
        List<byte[]> changes = new ArrayList<>();
        for (int k = 0; k <= steps.size(); k++) {
            if (k == whole) {
                base = h.snapshot();
            } else if (k > whole && k <= restore) {
                byte[] c = h.snapshotChanges();
                if (c == null) {
                    return null;
                }
                changes.add(c);
            }
            if (k == restore) {
                h.restoreFresh(base, changes);
            }
            if (k < steps.size()) {
                steps.get(k).play(h);
            } else {
                h.endOfInput();
            }
            out.add(step(h.takeOutput(), null));
        }
        return out;
    }

    /** On {@code layout.before} instances up to step {@code cut}, then on {@code layout.after} restored from all their snapshots. */
    private List<List<String>> playRescaled(Layout layout, int cut) {
        List<OperatorScript.Step> steps = script.get().steps();
        List<OperatorHarness> instances = new ArrayList<>();
        for (int i = 0; i < layout.before(); i++) {
            instances.add(OperatorHarness.of(factory, i, layout.before()));
        }
        List<List<String>> out = new ArrayList<>();
        for (int k = 0; k <= steps.size(); k++) {
            if (k == cut) {
                List<List<byte[]>> saved = new ArrayList<>();
                instances.forEach(h -> saved.add(List.of(h.snapshot())));
                long progress = instances.get(0).completeBelow();
                instances.clear();
                for (int j = 0; j < layout.after(); j++) {
                    instances.add(OperatorHarness.rescaled(factory, j, layout.after(), saved, progress));
                }
            }
            List<Emitted> emitted = new ArrayList<>();
            if (k == steps.size()) {
                instances.forEach(OperatorHarness::endOfInput);
            } else if (steps.get(k) instanceof OperatorScript.Item item) {
                instances.get(layout.router().instanceOf(item.input(), item.item(), instances.size())).item(item.input(), item.item());
            } else {
                for (OperatorHarness h : instances) {
                    steps.get(k).play(h);
                }
            }
            instances.forEach(h -> emitted.addAll(h.takeOutput()));
            out.add(step(emitted, null));
        }
        return out;
    }

    private static List<String> step(List<Emitted> emitted, List<Emitted> all) {
        if (all != null) {
            all.addAll(emitted);
        }
        return emitted.stream().map(Emitted::toString).sorted().toList();
    }
}
