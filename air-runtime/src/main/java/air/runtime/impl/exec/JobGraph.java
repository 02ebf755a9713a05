package air.runtime.impl.exec;

import air.channels.Channels;
import air.channels.Transport;
import air.runtime.JobConfig;
import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.SourceReader;
import air.runtime.impl.checkpoint.PartNames;
import air.runtime.impl.inbound.Alignment;
import air.runtime.impl.inbound.BarrierAligner;
import air.runtime.impl.inbound.InboundEdge;
import air.runtime.impl.inbound.RepeatFilter;
import air.runtime.impl.ops.ChainTail;
import air.runtime.impl.ops.Counted;
import air.runtime.impl.ops.EventClock;
import air.runtime.impl.ops.FilterOp;
import air.runtime.impl.ops.FinalWindowOp;
import air.runtime.impl.ops.FlatMapOp;
import air.runtime.impl.ops.GuardedWriter;
import air.runtime.impl.ops.Inlet;
import air.runtime.impl.ops.KeyedFrameFactory;
import air.runtime.impl.ops.LongKeyedFrame;
import air.runtime.impl.ops.MapOp;
import air.runtime.impl.ops.ObjectKeyedFrame;
import air.runtime.impl.ops.PartialWindowOp;
import air.runtime.impl.ops.ProgressSnapshot;
import air.runtime.impl.ops.ShuffleItemCodec;
import air.runtime.impl.ops.ShuffleOutput;
import air.runtime.impl.ops.SinkOp;
import air.runtime.impl.ops.SinkTail;
import air.runtime.impl.ops.Snapshotting;
import air.runtime.impl.ops.TimestampOp;
import air.runtime.impl.ops.TopKWindowOp;
import air.runtime.impl.ops.WindowFinal;
import air.runtime.impl.ops.WindowPartial;
import air.runtime.impl.ops.WindowStats;
import air.runtime.impl.progress.Completion;
import air.runtime.impl.progress.ProgressRelease;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.impl.source.GeneratorReader;
import air.runtime.operator.Operator;
import air.runtime.plan.HeadSpec;
import air.runtime.plan.KeySpec;
import air.runtime.plan.OpSpec;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.Progress;
import air.runtime.plan.TailSpec;
import air.runtime.plan.VertexPlan;
import air.runtime.plan.WindowAggregation;
import air.runtime.plan.WindowOutput;
import air.runtime.source.GeneratorSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * The plan instantiated: per vertex instance a fused chain of operator objects and a tasklet,
 * per shuffle destination an inbox. Operator classes are copied once per (vertex, position) and
 * shared by that vertex's instances.
 */
final class JobGraph {

    /** The operator instances at one position of one vertex, for meters. */
    record OperatorSlot(int vertex, String kind, OperatorInfo info, List<Counted> instances) { }

    private final List<Tasklet> tasklets = new ArrayList<>();
    private final Map<Tasklet, Inbox> consumerInboxes = new IdentityHashMap<>();
    private final List<OperatorSlot> slots = new ArrayList<>();
    private final List<SinkTail> sinks = new ArrayList<>();
    // read by meters on other threads, and grown when blocks are taken over
    private final List<WindowPartial> partials = new CopyOnWriteArrayList<>();
    private final List<WindowFinal> finals = new ArrayList<>();
    private final List<WindowFinal> meteredFinals = new CopyOnWriteArrayList<>();
    private final Map<Integer, Inbox[]> inboxes = new HashMap<>();
    private final Map<String, Class<?>> classes = new HashMap<>();
    private final Map<String, EventClock> clocks = new HashMap<>();
    /** Every local tasklet's checkpoint part name. */
    private final Set<String> parts = new TreeSet<>();
    /** A tasklet's link to checkpoints by its part name ({@link Checkpointing#OFF} without checkpoints). */
    private final Function<String, Checkpointing> checkpoints;
    private final ClassSpecializer specializer;
    /** Why sinks must be exactly-once (the fault-tolerance strategy's name), or null when they need not be. */
    private final String exactlyOnceBecause;
    private final JobConfig config;
    private final JobContext context;
    /** Cluster mode: the transport to the other peers; null on one JVM. */
    private final Transport transport;
    private final int self;
    private final int peers;
    /** The block of instances this graph builds: this peer's own, or a dead peer's it takes over. */
    private final int block;
    /** How shuffles cross peers: fixed, or following a placement that takeovers change (replication). */
    private final ShuffleWiring wiring;
    /** Replication: the receivers of remote shuffle items, which run until the job ends everywhere. */
    private final List<RemoteShuffleTasklet> receivers = new ArrayList<>();

    private JobGraph(JobConfig config, JobContext context, Transport transport, Function<String, Checkpointing> checkpoints,
                     ShuffleWiring wiring, int block, String exactlyOnceBecause) {
        this.exactlyOnceBecause = exactlyOnceBecause;
        this.checkpoints = checkpoints;
        this.config = config;
        this.context = context;
        this.transport = transport;
        this.self = transport == null ? 0 : transport.self();
        this.peers = transport == null ? 1 : transport.peers();
        this.block = block < 0 ? self : block;
        this.wiring = wiring;
        this.specializer = new ClassSpecializer(config.specializeOperators());
    }

    /** Upstream instances by global index, each with the peer it lives on in cluster mode: "[2 (peer 1)]". */
    String describeUpstream(int[] instances) {
        if (peers == 1) {
            return Arrays.toString(instances);
        }
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < instances.length; i++) {
            int block = instances[i] / config.workers();
            int host = wiring.hostOf(block); // where it runs now
            sb.append(i == 0 ? "" : ", ").append(instances[i]).append(" (peer ").append(host).append(')');
        }
        return sb.append(']').toString();
    }

    /**
     * A final instance of this graph as the report names it: local index, and in cluster mode its
     * global index, the peer it runs on and, for a block taken over, the peer it came from.
     */
    String describeFinal(int local) {
        return peers == 1 ? "instance " + local
                : "instance " + local + " (global " + (block * config.workers() + local) + " on peer " + self
                        + (block != self ? ", taken over from peer " + block : "") + ")";
    }

    /**
     * Builds one block of the plan's instances on this peer: this peer's own ({@code block} -1,
     * with the receivers of remote shuffle items) or, under replication, a dead peer's block it
     * takes over. A vertex of parallelism W has W instances on every peer: instance {@code i} of
     * block {@code b} is global instance {@code b * W + i} of {@code peers * W}. The fault-tolerance
     * strategy gives each tasklet's link to snapshots ({@code checkpoints}), how shuffles cross
     * peers ({@code wiring}) and why sinks must be exactly-once (null when they need not be).
     */
    static JobGraph build(PhysicalPlan plan, JobConfig config, JobContext context, Transport transport,
                          Function<String, Checkpointing> checkpoints,
                          ShuffleWiring wiring, int block, String exactlyOnceBecause) {
        JobGraph graph = new JobGraph(config, context, transport, checkpoints, wiring, block, exactlyOnceBecause);
        for (VertexPlan v : plan.vertices()) {
            if (v.head() instanceof HeadSpec.FinalWindow) {
                Inbox[] in = new Inbox[v.parallelism()];
                for (int i = 0; i < in.length; i++) {
                    in[i] = new Inbox(config.queueCapacity(), context);
                    wiring.hosted(v.id(), graph.globalParallelism(v), graph.global(i, v), in[i]);
                }
                graph.inboxes.put(v.id(), in);
            }
        }
        for (VertexPlan v : plan.vertices()) {
            graph.buildVertex(plan, v);
        }
        if (transport != null && transport.peers() > 1 && block < 0) {
            for (VertexPlan v : plan.vertices()) {
                if (v.tail() instanceof TailSpec.PartialWindow pw) {
                    RemoteShuffleTasklet r = new RemoteShuffleTasklet(context, "shuffle-in v" + (v.id() + 1), transport,
                            Channels.data(v.id()), codecFor(pw), v.parallelism(),
                            wiring.hostedInboxes(v.id() + 1, graph.globalParallelism(plan.vertices().get(v.id() + 1))),
                            !wiring.receiversOutliveTasklets());
                    if (wiring.receiversOutliveTasklets()) {
                        graph.receivers.add(r); // runs until the job has ended on every live peer
                    } else {
                        graph.tasklets.add(r);
                    }
                }
            }
        }
        return graph;
    }

    /** Replication: the receivers of remote shuffle items; they run until {@link RemoteShuffleTasklet#stop}. */
    List<RemoteShuffleTasklet> receivers() {
        return receivers;
    }

    private static ShuffleItemCodec codecFor(TailSpec.PartialWindow pw) {
        return frameCodec(pw.aggregation(), pw.info());
    }

    private int global(int instance, VertexPlan v) {
        return block * v.parallelism() + instance;
    }

    private int globalParallelism(VertexPlan v) {
        return peers * v.parallelism();
    }

    private void buildVertex(PhysicalPlan plan, VertexPlan v) {
        int positions = v.chain().size() + 2;
        List<List<Counted>> perPosition = new ArrayList<>();
        for (int p = 0; p < positions; p++) {
            perPosition.add(new CopyOnWriteArrayList<>());
        }
        for (int i = 0; i < v.parallelism(); i++) {
            Inlet<?> next = buildTail(v, i, perPosition.get(positions - 1));
            ChainTail tail = (ChainTail) next;
            List<Snapshotting> stateful = new ArrayList<>();
            if (next instanceof Snapshotting s) {
                stateful.add(s);
            }
            for (int k = v.chain().size() - 1; k >= 0; k--) {
                Inlet<?> op = buildOp(v.id(), k + 1, v.chain().get(k), next);
                perPosition.get(k + 1).add((Counted) op);
                if (op instanceof Snapshotting s) {
                    stateful.add(0, s);
                }
                next = op;
            }
            buildHead(plan, v, i, next, perPosition.get(0), stateful, tail);
        }
        slots.add(new OperatorSlot(v.id(), v.head() instanceof HeadSpec.Source ? "source" : "window-final",
                v.head().info(), perPosition.get(0)));
        for (int k = 0; k < v.chain().size(); k++) {
            OpSpec spec = v.chain().get(k);
            slots.add(new OperatorSlot(v.id(), kindOf(spec), spec.info(), perPosition.get(k + 1)));
        }
        slots.add(new OperatorSlot(v.id(), v.tail() instanceof TailSpec.Sink ? "sink" : "window-partial",
                v.tail().info(), perPosition.get(positions - 1)));
    }

    private static String kindOf(OpSpec spec) {
        return switch (spec) {
            case OpSpec.Map m -> "map";
            case OpSpec.Filter f -> "filter";
            case OpSpec.FlatMap f -> "flatMap";
            case OpSpec.Timestamps t -> "timestamps";
        };
    }

    private Class<?> classAt(int vertex, int position, Class<?> type) {
        return classes.computeIfAbsent(vertex + "/" + position + "/" + type.getName(), k -> specializer.specialize(type));
    }

    private Inlet<?> buildTail(VertexPlan v, int instance, List<Counted> slot) {
        int position = v.chain().size() + 1;
        switch (v.tail()) {
            case TailSpec.Sink s -> {
                GuardedWriter<?> writer = new GuardedWriter<>(s.factory().open(global(instance, v), globalParallelism(v)));
                requireCheckpointed(writer, s.info(), s.factory().describe());
                sinks.add(writer);
                Inlet<?> op = specializer.newInstance(classAt(v.id(), position, SinkOp.class), s.info(), writer);
                slot.add((Counted) op);
                return op;
            }
            case TailSpec.PartialWindow pw -> {
                Inbox[] destinations = inboxes.get(v.id() + 1);
                KeyedFrameFactory<?> frames = frameFactory(v.id(), position, pw.info(), pw.aggregation());
                GuardedWriter<?> late = pw.aggregation().lateRecords() == null ? null
                        : new GuardedWriter<>(pw.aggregation().lateRecords().open(global(instance, v), globalParallelism(v)));
                if (late != null) {
                    requireCheckpointed(late, pw.info(), "late records to " + pw.aggregation().lateRecords().describe());
                    sinks.add(late);
                }
                WindowAggregation agg = pw.aggregation();
                WindowRouter router = WindowRouter.of(agg.routing(), agg.window());
                ProgressRelease release = ProgressRelease.of(agg.progress(), agg.window(), router, global(instance, v), globalParallelism(v));
                Inlet<?> op = specializer.newInstance(classAt(v.id(), position, PartialWindowOp.class),
                        pw.info(), agg.window(), router, release, frames, codecFor(pw),
                        shuffleOutput(v, pw, global(instance, v), destinations), late);
                partials.add((WindowPartial) op);
                slot.add((Counted) op);
                return op;
            }
        }
    }

    /** With checkpoints, output must roll back with the state: a sink that cannot is refused before the job runs. */
    private void requireCheckpointed(GuardedWriter<?> writer, OperatorInfo info, String what) {
        if (exactlyOnceBecause != null && !(writer.delegate() instanceof CheckpointedSinkWriter<?>)) {
            writer.abortIfOpen();
            throw new IllegalArgumentException("job '" + config.name() + "': " + info + " (" + what + ") is not exactly-once: with "
                    + exactlyOnceBecause
                    + " every sink must give a CheckpointedSinkWriter (Sinks.collect and Sinks.files do; Sinks.file and print do not)");
        }
    }

    private ShuffleOutput shuffleOutput(VertexPlan v, TailSpec.PartialWindow pw, int producer, Inbox[] destinations) {
        if (peers == 1) {
            return new InboxShuffleOutput(producer, destinations);
        }
        return wiring.remoteOutput(producer, v.id() + 1, destinations, peers, Channels.data(v.id()), codecFor(pw));
    }

    private KeyedFrameFactory<?> frameFactory(int vertex, int position, OperatorInfo info, WindowAggregation agg) {
        return switch (agg.key()) {
            case KeySpec.LongKey k -> new KeyedFrameFactory<>(
                    ClassSpecializer.constructorOf(classAt(vertex, position, LongKeyedFrame.class)), info, k.keyFn(), agg.op());
            case KeySpec.ObjectKey k -> new KeyedFrameFactory<>(
                    ClassSpecializer.constructorOf(classAt(vertex, position, ObjectKeyedFrame.class)), info, k.keyFn(), agg.op());
        };
    }

    private Inlet<?> buildOp(int vertex, int position, OpSpec spec, Inlet<?> next) {
        return switch (spec) {
            case OpSpec.Map m -> specializer.newInstance(classAt(vertex, position, MapOp.class), m.info(), m.fn(), next);
            case OpSpec.Filter f -> specializer.newInstance(classAt(vertex, position, FilterOp.class), f.info(), f.predicate(), next);
            case OpSpec.FlatMap f -> specializer.newInstance(classAt(vertex, position, FlatMapOp.class), f.info(), f.fn(), next);
            case OpSpec.Timestamps t -> specializer.newInstance(classAt(vertex, position, TimestampOp.class),
                    t.info(), t.timestampFn(), t.allowedDisorderMs(), watermarkIntervalNanos(), config.idleTimeoutMs() * 1_000_000L,
                    clocks.computeIfAbsent(vertex + "/" + position, k -> new EventClock()), next);
        };
    }

    /** Hew-meld releases credit per batch; low watermarks are periodic. */
    private long watermarkIntervalNanos() {
        return config.progress() == Progress.HEWMELD ? 0 : config.watermarkIntervalMs() * 1_000_000L;
    }

    /** The codec of an aggregation's frames in checkpoints; null when it has no accumulator codec (checkpoints refused). */
    private static ShuffleItemCodec frameCodec(WindowAggregation agg, OperatorInfo info) {
        return agg.op().accumulatorCodec() == null ? null : new ShuffleItemCodec(info, agg.op().accumulatorCodec());
    }

    /** The checkpoint part of instance {@code instance} of vertex {@code v}, by global index. */
    private String partName(VertexPlan v, int instance) {
        return PartNames.of(v.id(), global(instance, v));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void buildHead(PhysicalPlan plan, VertexPlan v, int instance, Inlet<?> next, List<Counted> slot,
                           List<Snapshotting> stateful, ChainTail tail) {
        String name = "v" + v.id() + "#" + instance;
        Checkpointing cp = checkpoints.apply(partName(v, instance));
        switch (v.head()) {
            case HeadSpec.Source s -> {
                SourceReader<?> reader = s.factory() instanceof GeneratorSource<?> g
                        ? specializer.newInstance(classAt(v.id(), 0, GeneratorReader.class), g.readerArguments(global(instance, v),
                                globalParallelism(v)))
                        : s.factory().createReader(global(instance, v), globalParallelism(v));
                tasklets.add(new SourceTasklet(context, name + " " + s.info().name(), reader, next, config.batchSize(), global(instance, v),
                        new TaskletState(partName(v, instance), stateful, tail), cp));
                parts.add(partName(v, instance));
            }
            case HeadSpec.FinalWindow fw -> {
                int producers = globalParallelism(plan.vertices().get(v.id() - 1));
                WindowAggregation agg = fw.aggregation();
                KeyedFrameFactory<?> frames = frameFactory(v.id(), 0, fw.info(), agg);
                WindowRouter router = WindowRouter.of(agg.routing(), agg.window());
                Operator op = switch (fw.output()) {
                    case WindowOutput.PerKey p -> specializer.newInstance(classAt(v.id(), 0, FinalWindowOp.class), fw.info(), agg.window(),
                            router, global(instance, v), globalParallelism(v), frames, frameCodec(agg, fw.info()), next);
                    case WindowOutput.TopK t -> new TopKWindowOp<>(fw.info(), agg.window(), router, global(instance, v),
                            globalParallelism(v), frames, frameCodec(agg, fw.info()), t, (Inlet) next);
                };
                slot.add((Counted) op);
                Inbox inbox = inboxes.get(v.id())[instance];
                OperatorTasklet tasklet = new OperatorTasklet(context, name + " " + fw.info().name(), inbox,
                        new TaskletState(partName(v, instance), stateful, tail), cp);
                int[] inputs = {producers};
                tasklet.bind(new InboundEdge(fw.info().name(), op, next, inputs,
                        Completion.of(agg.progress(), fw.info().name(), agg.window().slide(), inputs),
                        alignmentFor(cp, producers), cp.enabled() ? new RepeatFilter(producers, agg.window().slide()) : null,
                        tasklet::onAligned));
                FinalView view = new FinalView((WindowStats) op, tasklet);
                finals.add(view);
                meteredFinals.add(view);
                parts.add(partName(v, instance));
                consumerInboxes.put(tasklet, inbox);
                tasklets.add(tasklet);
            }
        }
    }

    /**
     * Checkpoints and replication align barriers on every inbound edge and drop repeats; a job
     * without snapshots does neither.
     */
    private static Alignment alignmentFor(Checkpointing cp, int producers) {
        return cp.enabled() ? new BarrierAligner(producers, cp.restoredId()) : Alignment.NONE;
    }

    /** A final window instance as meters and the progress report read it. */
    private record FinalView(WindowStats op, OperatorTasklet tasklet) implements WindowFinal {
        @Override
        public long results() {
            return op.results();
        }

        @Override
        public OperatorInfo info() {
            return op.info();
        }

        @Override
        public ProgressSnapshot snapshot() {
            return tasklet.progress();
        }
    }

    void bindConsumer(Tasklet tasklet, Thread thread) {
        Inbox inbox = consumerInboxes.get(tasklet);
        if (inbox != null) {
            inbox.bindConsumer(thread);
        }
    }

    void abortSinks() {
        for (SinkTail sink : sinks) {
            try {
                sink.abortIfOpen();
            } catch (RuntimeException e) {
                // the job already failed; the first failure is the one reported
            }
        }
    }

    List<Tasklet> tasklets() {
        return tasklets;
    }

    List<OperatorSlot> slots() {
        return slots;
    }

    Map<Integer, Inbox[]> inboxes() {
        return inboxes;
    }

    List<WindowPartial> partials() {
        return partials;
    }

    /** The final instances whose results the meters count: this peer's and those of blocks taken over. */
    List<WindowFinal> meteredFinals() {
        return meteredFinals;
    }

    /**
     * A block taken over from a dead peer (built from the same plan): its operators count in this
     * graph's meters from now on. The progress report keeps to this peer's own instances.
     */
    void meterAlso(JobGraph adopted) {
        for (int s = 0; s < slots.size(); s++) {
            slots.get(s).instances().addAll(adopted.slots.get(s).instances());
        }
        partials.addAll(adopted.partials);
        meteredFinals.addAll(adopted.meteredFinals);
    }

    List<WindowFinal> finals() {
        return finals;
    }

    /** The checkpoint part names of this peer's tasklets. */
    Set<String> parts() {
        return parts;
    }
}
