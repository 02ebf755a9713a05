package air.test.ops;

import air.dsl.Pipeline;
import air.runtime.JobConfig;
import air.runtime.api.Timestamped;
import air.runtime.impl.exec.StandaloneHeads;
import air.runtime.impl.ops.KeyedFrame;
import air.runtime.impl.ops.KeyedFrameFactory;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.RecordBatch;
import air.runtime.plan.HeadSpec;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.ShuffleEdge;
import air.runtime.plan.TailSpec;
import air.runtime.plan.VertexPlan;
import air.runtime.plan.WindowAggregation;
import air.test.OperatorHarness;
import air.test.OperatorScript;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * A pipeline's operator behind a shuffle, as the engine builds it: the plan's head (built by
 * {@link StandaloneHeads}, the engine's own factory) and what its partial halves ship, made from
 * records the way the partial half makes them (the plan's frames, one partial per frame).
 */
final class Planned {

    final JobConfig config;
    final HeadSpec head;
    private final WindowAggregation[] sides;

    private Planned(JobConfig config, HeadSpec head, WindowAggregation[] sides) {
        this.config = config;
        this.head = head;
        this.sides = sides;
    }

    /** The first head behind a shuffle in {@code p}'s plan under {@code config}. */
    static Planned of(Pipeline p, JobConfig config) {
        JobConfig c = config.specializeOperators(false);
        PhysicalPlan plan = p.plan(c);
        for (VertexPlan v : plan.vertices()) {
            if (v.head() instanceof HeadSpec.Source || v.head() instanceof HeadSpec.Exchange) {
                continue;
            }
            WindowAggregation[] sides = new WindowAggregation[v.head().inputs()];
            for (ShuffleEdge e : plan.edgesInto(v.id())) {
                if (plan.tailOf(e) instanceof TailSpec.PartialWindow pw) {
                    sides[e.input()] = pw.aggregation();
                }
            }
            return new Planned(c, v.head(), sides);
        }
        throw new IllegalArgumentException("no head behind a shuffle in\n" + plan.explain());
    }

    /** Builds the head for each instance, as {@code OperatorFactory.head} does. */
    OperatorHarness.Factory factory() {
        return (out, instance, instances) -> StandaloneHeads.head(config, head, instance, instances, new HarnessInlet(out));
    }

    /** The length of input {@code input}'s frames (the slide, or the pane of a session, count or join). */
    long frame(int input) {
        return sides[input].window().slide();
    }

    /** One partial of one key's records of one frame from {@code producer} (stamped: the partial sees {@code Timestamped} records). */
    @SuppressWarnings("unchecked")
    FrameAccumulators partial(int input, int producer, long frameStart, List<Ev> records, boolean stamped) {
        KeyedFrameFactory<Object> frames = (KeyedFrameFactory<Object>) StandaloneHeads.frames(config, head.info(), sides[input]);
        KeyedFrame<Object> frame = frames.create();
        for (Ev e : records) {
            frame.accumulate(stamped ? new Timestamped<>(e.time(), e) : e);
        }
        return frame.drainAll(producer, frameStart);
    }

    /**
     * The script a partial half would ship: records by input; before each progress step (every
     * {@code every} ms, past the last record), each producer's frames below it, oldest first, one
     * partial per (frame, key), so that any layout can route them by key.
     */
    OperatorScript script(List<List<Ev>> byInput, long every, boolean stamped) {
        OperatorScript.Builder b = OperatorScript.builder();
        long last = byInput.stream().flatMap(List::stream).mapToLong(Ev::time).max().orElse(0);
        for (long from = 0; from <= last; from += every) {
            for (int input = 0; input < byInput.size(); input++) {
                long frame = frame(input);
                for (int producer = 0; producer < 2; producer++) {
                    // frame start -> key -> records
                    TreeMap<Long, TreeMap<Long, List<Ev>>> frames = new TreeMap<>();
                    for (Ev e : byInput.get(input)) {
                        if (e.producer() == producer && e.time() >= from && e.time() < from + every) {
                            frames.computeIfAbsent(Math.floorDiv(e.time(), frame) * frame, k -> new TreeMap<>())
                                    .computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
                        }
                    }
                    int in = input;
                    int p = producer;
                    frames.forEach((start, keys) -> keys.forEach((key, records) -> b.item(in, partial(in, p, start, records, stamped))));
                }
            }
            b.progress(from + every);
        }
        return b.build();
    }

    /** The batches a KEY exchange ships: each producer's records in time order, one per batch, numbered per producer. */
    static OperatorScript batches(List<Ev> records, long every) {
        OperatorScript.Builder b = OperatorScript.builder();
        long last = records.stream().mapToLong(Ev::time).max().orElse(0);
        long[] index = new long[2];
        for (long from = 0; from <= last; from += every) {
            for (Ev e : records) {
                if (e.time() >= from && e.time() < from + every) {
                    b.item(new RecordBatch(e.producer(), index[e.producer()]++, new long[] {e.time()}, new Object[] {e}, 1));
                }
            }
            b.progress(from + every);
        }
        return b.build();
    }
}
