package air.runtime.impl.exec;

import air.channels.Channels;
import air.channels.Transport;
import air.runtime.JobConfig;
import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.CommittingSinkWriter;
import air.runtime.api.SideOutputs;
import air.runtime.api.SinkWriter;
import air.runtime.api.SourceContext;
import air.runtime.api.SourceReader;
import air.runtime.ft.ShuffleWiring;
import air.runtime.impl.checkpoint.OperatorIds;
import air.runtime.impl.checkpoint.PartNames;
import air.runtime.impl.inbound.Alignment;
import air.runtime.impl.inbound.BarrierAligner;
import air.runtime.impl.inbound.InboundEdge;
import air.runtime.impl.inbound.RepeatFilter;
import air.runtime.impl.ops.ChainTail;
import air.runtime.impl.ops.DeadLetterFork;
import air.runtime.impl.ops.ExchangeOp;
import air.runtime.impl.ops.ForkOp;
import air.runtime.impl.ops.ForkTail;
import air.runtime.impl.ops.FrameUpdates;
import air.runtime.impl.ops.GuardedWriter;
import air.runtime.impl.ops.Inlet;
import air.runtime.impl.ops.KeyedFrameFactory;
import air.runtime.impl.ops.PartialWindowMeters;
import air.runtime.impl.ops.PartialWindowOp;
import air.runtime.impl.ops.ProgressSnapshot;
import air.runtime.impl.ops.SinkOp;
import air.runtime.impl.ops.SinkTail;
import air.runtime.impl.ops.Snapshotting;
import air.runtime.impl.ops.SplitCursor;
import air.runtime.impl.ops.UpsertFrameUpdates;
import air.runtime.impl.ops.WindowFinal;
import air.runtime.impl.ops.WindowStats;
import air.runtime.impl.progress.Completion;
import air.runtime.impl.progress.ProgressRelease;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.impl.shuffle.DataChannel;
import air.runtime.impl.shuffle.Inbox;
import air.runtime.impl.shuffle.InboxShuffleOutput;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.impl.shuffle.ShuffleOutput;
import air.runtime.impl.source.SplitSourceReader;
import air.runtime.operator.Operator;
import air.runtime.plan.HeadSpec;
import air.runtime.plan.OpSpec;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.Progress;
import air.runtime.plan.ShuffleEdge;
import air.runtime.plan.TailSpec;
import air.runtime.plan.VertexPlan;
import air.runtime.plan.WindowAggregation;
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
public final class JobGraph {

    private final PhysicalPlan plan;
    private final ProducerNumbering numbering;
    private final List<Tasklet> tasklets = new ArrayList<>();
    private final Map<Tasklet, Inbox> consumerInboxes = new IdentityHashMap<>();
    private final List<OperatorSlot> slots = new ArrayList<>();
    private final List<SinkTail> sinks = new ArrayList<>();
    /** The two-phase-commit sink writers, told of each completed checkpoint by the fault-tolerance strategy. */
    private final List<CommittingSinkWriter<?>> committers = new ArrayList<>();
    /** A source's side outputs (dead letters) are sinks of this graph: checked, claimed, committed, closed and aborted as they are. */
    private final SideOutputs sideOutputs = new SideOutputs() {
        @Override
        public <T> SinkWriter<T> adopt(SinkWriter<T> writer, String owner, String what) {
            GuardedWriter<T> guard = new GuardedWriter<>(writer);
            requireCheckpointed(guard, owner, what);
            sinks.add(guard);
            return guard;
        }
    };
    // read by meters on other threads, and grown when blocks are taken over
    private final List<PartialWindowMeters> partials = new CopyOnWriteArrayList<>();
    private final List<WindowFinal> finals = new ArrayList<>();
    private final List<WindowFinal> meteredFinals = new CopyOnWriteArrayList<>();
    private final Map<Integer, Inbox[]> inboxes = new HashMap<>();
    /** Every local tasklet's checkpoint part name. */
    private final Set<String> parts = new TreeSet<>();
    /** A tasklet's link to checkpoints by its part name ({@link Checkpointing#OFF} without checkpoints). */
    private final Function<String, Checkpointing> checkpoints;
    /** Builds every operator of this graph, from per-job class copies. */
    private final OperatorFactory ops;
    /** The stable id each stateful operator's state is filed under in checkpoints and replicas. */
    private final OperatorIds ids;
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

    private JobGraph(PhysicalPlan plan, JobConfig config, JobContext context, Transport transport,
                     Function<String, Checkpointing> checkpoints, ShuffleWiring wiring, int block, String exactlyOnceBecause) {
        this.plan = plan;
        this.exactlyOnceBecause = exactlyOnceBecause;
        this.checkpoints = checkpoints;
        this.config = config;
        this.context = context;
        this.transport = transport;
        this.self = transport == null ? 0 : transport.self();
        this.peers = transport == null ? 1 : transport.peers();
        this.block = block < 0 ? self : block;
        this.numbering = new ProducerNumbering(plan, peers);
        this.wiring = wiring;
        this.ops = new OperatorFactory(config);
        this.ids = OperatorIds.of(plan);
    }

    /** Upstream producers of vertex {@code vertex} by their number there, as {@link ProducerNumbering#describe} names them. */
    String describeUpstream(int vertex, int[] producers) {
        return numbering.describe(vertex, producers, wiring::hostOf);
    }

    /**
     * A final instance as the report names it: local index, and in cluster mode its global index,
     * the peer it runs on and, for a block taken over, the peer it came from.
     */
    private String describeFinal(VertexPlan v, int local) {
        return peers == 1 ? "instance " + local
                : "instance " + local + " (global " + global(local, v) + " on peer " + self
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
    public static JobGraph build(PhysicalPlan plan, JobConfig config, JobContext context, Transport transport,
                                 Function<String, Checkpointing> checkpoints,
                                 ShuffleWiring wiring, int block, String exactlyOnceBecause) {
        KeyTypeCheck.requireStableKeys(plan, config);
        JobGraph graph = new JobGraph(plan, config, context, transport, checkpoints, wiring, block, exactlyOnceBecause);
        for (VertexPlan v : plan.vertices()) {
            if (v.head().inputs() > 0) {
                Inbox[] in = new Inbox[v.parallelism()];
                for (int i = 0; i < in.length; i++) {
                    in[i] = new Inbox(config.queueCapacity(), context::checkCancelled);
                    wiring.hosted(v.id(), graph.globalParallelism(v), graph.global(i, v), in[i]);
                }
                graph.inboxes.put(v.id(), in);
            }
        }
        for (VertexPlan v : plan.vertices()) {
            graph.buildVertex(v);
        }
        if (transport != null && transport.peers() > 1 && block < 0) {
            for (ShuffleEdge e : plan.edges()) {
                VertexPlan from = plan.vertices().get(e.from());
                VertexPlan to = plan.vertices().get(e.to());
                RemoteShuffleTasklet r = new RemoteShuffleTasklet(context, "shuffle-in " + e.id() + " v" + e.to(), transport,
                        graph.dataChannel(e), codecFor(plan.tailOf(e)), from.parallelism(), graph.numbering.base(e),
                        wiring.hostedInboxes(e.to(), graph.globalParallelism(to)), !wiring.receiversOutliveTasklets(),
                        config.meterRegistryOrDefault());
                if (wiring.receiversOutliveTasklets()) {
                    graph.receivers.add(r); // runs until the job has ended on every live peer
                } else {
                    graph.tasklets.add(r);
                }
            }
        }
        return graph;
    }

    /** Edge {@code e}'s data channel in this cluster job. */
    private DataChannel dataChannel(ShuffleEdge e) {
        return new DataChannel(Channels.data(e.id()), context.clusterJob());
    }

    /**
     * Cluster mode, once nobody here receives on them any more (this peer's part of the job ended,
     * or its graph could not be built): drops what is left queued on {@code plan}'s data channels
     * and releases the peers waiting for room there ({@link Transport#discard}), so that none of it
     * waits for the next job on the same channels.
     */
    static void discardFrames(PhysicalPlan plan, Transport transport) {
        for (ShuffleEdge e : plan.edges()) {
            transport.discard(Channels.data(e.id()));
        }
    }

    /** Replication: the receivers of remote shuffle items; they run until {@link RemoteShuffleTasklet#stop}. */
    List<RemoteShuffleTasklet> receivers() {
        return receivers;
    }

    private static ShuffleItemCodec codecFor(TailSpec.Shuffle tail) {
        return switch (tail) {
            case TailSpec.PartialWindow pw -> OperatorFactory.frameCodec(pw.aggregation(), pw.info());
            case TailSpec.Exchange x -> ShuffleItemCodec.forRecords(x.info(), x.recordCodec());
        };
    }

    private int global(int instance, VertexPlan v) {
        return block * v.parallelism() + instance;
    }

    private int globalParallelism(VertexPlan v) {
        return numbering.globalParallelism(v);
    }

    /**
     * A chain or branch as built for one instance: where records enter it, and its tail as
     * checkpointing sees it; {@code deadLetters}: where the dead letters of the operator in front
     * of it go, when that one's bad-record policy is dead-letter (its tail is a dead-letter fork), else null.
     */
    private record Built(Inlet<?> head, ChainTail tail, Inlet<?> deadLetters) {
        Built(Inlet<?> head, ChainTail tail) {
            this(head, tail, null);
        }
    }

    /**
     * Builds every instance of {@code v}. A source's reader is made before its chain: one that
     * reads several splits in turn names each in a {@link SplitCursor} that its chain's
     * {@code withTimestamps} reads, to keep event time per split.
     */
    private void buildVertex(VertexPlan v) {
        OperatorPositions positions = new OperatorPositions(v.id());
        for (int i = 0; i < v.parallelism(); i++) {
            positions.nextInstance();
            List<TaskletState.Op> stateful = new ArrayList<>();
            SourceReader<?> reader = v.head() instanceof HeadSpec.Source s ? createReader(v, s, i) : null;
            SplitCursor cursor = null;
            if (reader instanceof SplitSourceReader<?> splits) {
                cursor = new SplitCursor();
                splits.trackSplits(cursor);
            }
            ops.readingSplits(cursor);
            Built body;
            try {
                body = buildBranch(v, i, v.chain(), v.tail(), positions, stateful);
            } finally {
                ops.readingSplits(null);
            }
            buildHead(v, i, body, positions, stateful, reader);
        }
        slots.addAll(positions.slots());
    }

    /** Builds a chain and its tail for instance {@code instance}, adding its stateful operators to {@code stateful} in chain order. */
    private Built buildBranch(VertexPlan v, int instance, List<OpSpec> chain, TailSpec tailSpec, OperatorPositions positions,
                              List<TaskletState.Op> stateful) {
        int first = positions.reserve(chain.size());
        List<TaskletState.Op> tailState = new ArrayList<>();
        Built tail = buildTail(v, instance, tailSpec, positions, tailState);
        Inlet<?> next = tail.head();
        Inlet<?> deadLetters = tail.deadLetters(); // for the chain's last operator, or the head when the chain is empty
        List<TaskletState.Op> chainState = new ArrayList<>();
        for (int k = chain.size() - 1; k >= 0; k--) {
            int position = first + k;
            Inlet<?> op = ops.chainOp(v.id(), position, chain.get(k), next, deadLetters);
            deadLetters = null;
            positions.add(position, OperatorFactory.kindOf(chain.get(k)), chain.get(k).info(), op, next);
            if (op instanceof Snapshotting s) {
                chainState.add(0, new TaskletState.Op(ids.of(chain.get(k)), s));
            }
            next = op;
        }
        stateful.addAll(chainState);
        stateful.addAll(tailState);
        return new Built(next, tail.tail(), deadLetters);
    }

    private Built buildTail(VertexPlan v, int instance, TailSpec tailSpec, OperatorPositions positions, List<TaskletState.Op> stateful) {
        switch (tailSpec) {
            case TailSpec.Sink s -> {
                int position = positions.take();
                int g = globalParallelism(v);
                GuardedWriter<?> writer = new GuardedWriter<>(s.factory().open(s.copy() * g + global(instance, v), s.copies() * g));
                requireCheckpointed(writer, s.info(), s.factory().describe());
                sinks.add(writer);
                Inlet<?> op = ops.create(v.id(), position, SinkOp.class, s.info(), writer);
                positions.add(position, "sink", s.info(), op, null);
                stateful.add(new TaskletState.Op(ids.of(s), (Snapshotting) op));
                return new Built(op, (ChainTail) op);
            }
            case TailSpec.PartialWindow pw -> {
                int position = positions.take();
                ShuffleEdge edge = plan.edges().get(pw.edge());
                Inbox[] destinations = inboxes.get(edge.to());
                KeyedFrameFactory<?> frames = ops.frameFactory(v.id(), position, pw.info(), pw.aggregation());
                GuardedWriter<?> late = pw.aggregation().lateRecords() == null ? null : openLateRecords(pw, v, instance);
                if (late != null) {
                    requireCheckpointed(late, pw.info(), "late records to " + pw.aggregation().lateRecords().describe());
                    sinks.add(late);
                }
                WindowAggregation agg = pw.aggregation();
                int producer = numbering.base(edge) + global(instance, v);
                int inputBase = numbering.inputBase(edge.to(), edge.input());
                int inputProducers = numbering.perInput(plan.vertices().get(edge.to()))[edge.input()];
                WindowRouter router = WindowRouter.of(agg.routing(), agg.window());
                ProgressRelease release = ProgressRelease.of(agg.progress(), agg.window(), router, producer - inputBase, inputProducers);
                ShuffleOutput out = shuffleOutput(edge, pw, producer, destinations);
                // a window emitting upserts admits late records and ships early; a plain one gets the strategy that does nothing
                boolean upserts = agg.allowedLatenessMs() > 0 || agg.earlyResultsMs() > 0;
                FrameUpdates<?> updates = upserts
                        ? new UpsertFrameUpdates<>(agg.window(), agg.allowedLatenessMs(), agg.earlyResultsMs() > 0, frames, router, codecFor(pw), out)
                        : FrameUpdates.none();
                Inlet<?> op = ops.create(v.id(), position, PartialWindowOp.class, pw.info(), agg.window(), router, release, frames, codecFor(pw),
                        out, late, updates);
                partials.add((PartialWindowMeters) op);
                positions.add(position, "window-partial", pw.info(), op, null);
                stateful.add(new TaskletState.Op(ids.of(pw), (Snapshotting) op));
                return new Built(op, (ChainTail) op);
            }
            case TailSpec.Exchange x -> {
                int position = positions.take();
                ShuffleEdge edge = plan.edges().get(x.edge());
                int producer = numbering.base(edge) + global(instance, v);
                Inlet<?> op = ops.create(v.id(), position, ExchangeOp.class, x.info(), x.spread() == TailSpec.Spread.BROADCAST,
                        x.key() == null ? null : OperatorFactory.keyHash(x.key()), shuffleOutput(edge, x, producer, inboxes.get(edge.to())));
                positions.add(position, "exchange", x.info(), op, null);
                stateful.add(new TaskletState.Op(ids.of(x), (Snapshotting) op));
                return new Built(op, (ChainTail) op);
            }
            case TailSpec.Fork f when f.deadLetters() -> {
                // records go down the first branch only; the operator in front sends its dead letters straight into the second
                Built main = buildForkBranch(v, instance, f.branches().get(0), positions, stateful);
                Built dead = buildForkBranch(v, instance, f.branches().get(1), positions, stateful);
                int position = positions.take();
                Inlet<?> fork = ops.create(v.id(), position, DeadLetterFork.class, f.info(), main.head(), dead.head());
                positions.add(position, "fork", f.info(), fork, main.head());
                return new Built(fork, new ForkTail(List.of(main.tail(), dead.tail())), dead.head());
            }
            case TailSpec.Fork f -> {
                List<Built> branches = new ArrayList<>();
                for (TailSpec.Branch b : f.branches()) {
                    branches.add(buildForkBranch(v, instance, b, positions, stateful));
                }
                Inlet<?> head = branches.get(branches.size() - 1).head();
                for (int b = branches.size() - 2; b >= 0; b--) {
                    int position = positions.take();
                    Inlet<?> first = branches.get(b).head();
                    head = ops.create(v.id(), position, ForkOp.class, f.info(), first, head);
                    positions.add(position, "fork", f.info(), head, first);
                }
                return new Built(head, new ForkTail(branches.stream().map(Built::tail).toList()));
            }
        }
    }

    /** One branch of a fork: an operator in front of a dead-letter fork is on the branch's chain, never missing. */
    private Built buildForkBranch(VertexPlan v, int instance, TailSpec.Branch b, OperatorPositions positions,
                                  List<TaskletState.Op> stateful) {
        Built built = buildBranch(v, instance, b.chain(), b.tail(), positions, stateful);
        if (built.deadLetters() != null) {
            throw new IllegalStateException("vertex " + v.id() + ": " + b.tail().info() + " takes dead letters, but no operator is in front"
                    + " of it on its branch");
        }
        return built;
    }

    /**
     * The late-record writer of partial tail {@code pw}, instance {@code instance}: a side output
     * reached by several partial tails (after a merge, or one windowing aggregated twice) numbers
     * its writers per tail, as sinks after a merge do, so that none collide.
     */
    private GuardedWriter<?> openLateRecords(TailSpec.PartialWindow pw, VertexPlan v, int instance) {
        List<TailSpec.PartialWindow> sharing = new ArrayList<>();
        for (VertexPlan u : plan.vertices()) {
            for (TailSpec.Shuffle t : u.shuffleTails()) {
                if (t instanceof TailSpec.PartialWindow p && p.aggregation().lateRecords() == pw.aggregation().lateRecords()) {
                    sharing.add(p);
                }
            }
        }
        int first = 0; // writers of the tails before this one, each counted with its own vertex's instances
        int all = 0;
        boolean before = true;
        for (TailSpec.PartialWindow p : sharing) {
            int instances = globalParallelism(plan.vertices().get(vertexOf(p)));
            if (p == pw) {
                before = false;
            } else if (before) {
                first += instances;
            }
            all += instances;
        }
        return new GuardedWriter<>(pw.aggregation().lateRecords().open(first + global(instance, v), all));
    }

    /** The vertex whose tails include {@code tail}. */
    private int vertexOf(TailSpec.Shuffle tail) {
        return plan.edges().get(tail.edge()).from();
    }

    /**
     * With checkpoints or replication, output must roll back with the state: a sink that cannot is
     * refused before the job runs; each is told who owns it now (its fencing token).
     */
    private void requireCheckpointed(GuardedWriter<?> writer, Object who, String what) {
        if (exactlyOnceBecause == null) {
            return;
        }
        if (!(writer.delegate() instanceof CheckpointedSinkWriter<?> checkpointed)) {
            writer.abortIfOpen();
            throw new IllegalArgumentException("job '" + config.name() + "': " + who + " (" + what + ") is not exactly-once: with "
                    + exactlyOnceBecause
                    + " every sink must give a CheckpointedSinkWriter (Sinks.collect and Sinks.files do; Sinks.file and print do not)");
        }
        checkpointed.claim(context.owner());
        if (checkpointed instanceof CommittingSinkWriter<?> committing) {
            committers.add(committing);
            writer.deferCloseUntilTheJobEnds();
        }
    }

    /** The two-phase-commit sink writers of this graph: each is told when a checkpoint is complete everywhere. */
    public List<CommittingSinkWriter<?>> committers() {
        return committers;
    }

    /**
     * The reader of source instance {@code instance}, not yet opened. With checkpoints or replicas
     * a source that cannot replay what it emitted is refused here, before the job runs, naming the
     * call: it would fail only at its first recovery.
     */
    private SourceReader<?> createReader(VertexPlan v, HeadSpec.Source s, int instance) {
        String notReplayable = s.factory().notReplayableBecause();
        if (exactlyOnceBecause != null && notReplayable != null) {
            throw new IllegalArgumentException("job '" + config.name() + "': source " + s.factory().describe() + " (" + s.info()
                    + ") cannot be replayed, and with " + exactlyOnceBecause + " every source must replay what it emitted after the "
                    + "checkpoint it resumes from: " + notReplayable);
        }
        return ops.reader(v.id(), s, global(instance, v), globalParallelism(v));
    }

    /** Tells the reader of source instance {@code instance} who it is. */
    private void openReader(VertexPlan v, HeadSpec.Source s, int instance, SourceReader<?> reader) {
        reader.open(new SourceContext(global(instance, v), globalParallelism(v), config.name(), s.info().toString(),
                config.meterRegistryOrDefault(), exactlyOnceBecause, context.owner(), sideOutputs));
    }

    private ShuffleOutput shuffleOutput(ShuffleEdge edge, TailSpec.Shuffle pw, int producer, Inbox[] destinations) {
        if (peers == 1) {
            return new InboxShuffleOutput(producer, destinations);
        }
        return wiring.remoteOutput(producer, edge.to(), destinations, peers, dataChannel(edge), codecFor(pw));
    }

    /** The checkpoint part of instance {@code instance} of vertex {@code v}, by global index. */
    private String partName(VertexPlan v, int instance) {
        return PartNames.of(v.id(), global(instance, v));
    }

    /**
     * The head of instance {@code instance} of {@code v}, in front of {@code body} (which gets the
     * head's dead letters, if any); {@code reader}: a source's reader, made before its chain.
     */
    private void buildHead(VertexPlan v, int instance, Built body, OperatorPositions positions, List<TaskletState.Op> stateful,
                           SourceReader<?> reader) {
        Inlet<?> next = body.head();
        ChainTail tail = body.tail();
        String name = "v" + v.id() + "#" + instance;
        Checkpointing cp = checkpoints.apply(partName(v, instance));
        TaskletState state = new TaskletState(partName(v, instance), ids.of(v.head()), stateful, tail);
        parts.add(partName(v, instance));
        if (v.head() instanceof HeadSpec.Source s) {
            if (body.deadLetters() != null) {
                throw new IllegalStateException("vertex " + v.id() + ": a source has no bad-record policy of a user function to dead-letter");
            }
            openReader(v, s, instance, reader);
            ops.bindOrigins(reader::describePosition); // the chain runs inside the reader's emit: its position is the record's origin
            positions.add(0, "source", s.info(), null, next); // sources count in their tasklets, not here
            @SuppressWarnings("unchecked") // the chain's first inlet takes what the reader emits: the DSL typed the plan
            SourceTasklet<Object> source = new SourceTasklet<>(context, name + " " + s.info().name(), (SourceReader<Object>) reader,
                    (Inlet<Object>) next, config.batchSize(), global(instance, v), state, cp);
            tasklets.add(source);
            return;
        }
        OperatorFactory.Head head = ops.head(v.id(), v.head(), global(instance, v), globalParallelism(v), next, body.deadLetters());
        ops.bindOrigins(null); // past a shuffle a record's origin is not known
        positions.add(0, head.kind(), v.head().info(), head.op(), next);
        bindFinal(v, instance, v.head().info(), head.op(), head.progress(), head.epochLength(), next, state, cp, head.window());
    }

    /**
     * Runs {@code op} behind its inbound edge on its own tasklet; progress reports cover it, and a
     * window operator ({@code window}) also counts in the window meters.
     */
    private void bindFinal(VertexPlan v, int instance, OperatorInfo info, Operator op, Progress progress, long epochLength, Inlet<?> next,
                           TaskletState state, Checkpointing cp, boolean window) {
        Inbox inbox = inboxes.get(v.id())[instance];
        OperatorTasklet tasklet = new OperatorTasklet(context, "v" + v.id() + "#" + instance + " " + info.name(), inbox, state, cp);
        int[] inputs = numbering.perInput(v);
        int producers = Arrays.stream(inputs).sum();
        tasklet.bind(new InboundEdge(info.name(), op, next, inputs,
                Completion.of(progress, info.name(), epochLength, inputs),
                alignmentFor(cp, v, producers), cp.enabled() ? new RepeatFilter(producers, epochLength) : null,
                tasklet::onAligned));
        FinalView view = new FinalView((WindowStats) op, tasklet, v.id(), instance, describeFinal(v, instance));
        finals.add(view); // the progress report and the stall watch cover exchanges too
        if (window) {
            meteredFinals.add(view);
        }
        consumerInboxes.put(tasklet, inbox);
        tasklets.add(tasklet);
    }

    /**
     * Checkpoints and replication align barriers on every inbound edge and drop repeats; a job
     * without snapshots does neither. What alignment holds past the job's bound is spilled, each
     * producer's items in its edge's shuffle encoding.
     */
    private Alignment alignmentFor(Checkpointing cp, VertexPlan v, int producers) {
        if (!cp.enabled()) {
            return Alignment.NONE;
        }
        return new BarrierAligner(producers, cp.restoredId(), config.alignmentBufferBytes(), p -> {
            for (ShuffleEdge e : plan.edgesInto(v.id())) {
                if (p < numbering.base(e) + globalParallelism(plan.vertices().get(e.from()))) {
                    return codecFor(plan.tailOf(e));
                }
            }
            throw new IllegalStateException("producer " + p + " feeds no edge into vertex " + v.id());
        }, config.alignmentSpillDirectory() == null ? BarrierAligner.TEMP : config.alignmentSpillDirectory(), config.alignmentSpillCapBytes());
    }

    /** A final window instance as meters and the progress report read it. */
    private record FinalView(WindowStats op, OperatorTasklet tasklet, int vertex, int instance, String where) implements WindowFinal {
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

        @Override
        public String describe() {
            return where;
        }
    }

    /** The upstream instances holding back final instance {@code f} of this graph, as {@link #describeUpstream} names them. */
    String describeHolders(WindowFinal f, int[] producers) {
        return describeUpstream(((FinalView) f).vertex(), producers);
    }

    void bindConsumer(Tasklet tasklet, Thread thread) {
        Inbox inbox = consumerInboxes.get(tasklet);
        if (inbox != null) {
            inbox.bindConsumer(thread);
        }
    }

    /** The job ended well everywhere: the two-phase-commit writers commit what they wrote since the last checkpoint. */
    void closeDeferredSinks() {
        for (SinkTail sink : sinks) {
            sink.closeDeferred();
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

    List<PartialWindowMeters> partials() {
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
    public Set<String> parts() {
        return parts;
    }
}
