package air.runtime.impl.checkpoint;

import air.runtime.impl.ops.LongValueFrame;
import air.runtime.plan.HeadSpec;
import air.runtime.plan.KeySpec;
import air.runtime.plan.OpSpec;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.ShuffleEdge;
import air.runtime.plan.TailSpec;
import air.runtime.plan.VertexPlan;
import air.runtime.plan.WindowAggregation;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The stable id of every operator of a plan, which a checkpoint files its state under, so that a
 * changed pipeline resumes what still matches instead of starting from scratch.
 *
 * <p>An id is {@code <where>#<kind>}: {@code where} is the user's {@code named(...)} label, or
 * {@code v<vertex>} (the vertex's place in the plan's topological order); {@code kind} is what the
 * operator is ({@code source}, {@code window-final}, {@code timestamps}, {@code sink}, ...). The
 * sending half of an edge (a window's partial half, an exchange) is named after the operator it
 * feeds, and by input when that one has two: {@code counts#window-partial}, {@code v3#exchange-1}.
 * Operators that would share an id (two sinks of one vertex, the copies of a stage after a merge)
 * are told apart by their order in the plan: {@code v0#sink}, {@code v0#sink.1}. No id depends on
 * a source line or on where a stateless stage sits in a chain, so a moved line or an added
 * {@code map} keeps every id; an added or removed vertex renumbers the unnamed operators after it,
 * which is why stateful stages that should survive such edits want a name.
 *
 * <p>The descriptor says what the state depends on; a restore hands state back only when it is
 * the same. An unnamed operator's descriptor also holds a digest of its lineage (what feeds it, up
 * to the sources or the nearest named operator), so that another pipeline under the same job
 * name never takes this one's state by sharing a vertex number. Two distinct stages given the same
 * name are refused here, naming both call sites.
 */
public final class OperatorIds {

    private static final Pattern CALL_SITE = Pattern.compile("@[A-Za-z0-9_$.\\-]+\\.java:\\d+");

    /** By plan object (identity: specs are records, and two equal ones are still two operators). */
    private final Map<Object, OperatorId> bySpec = new IdentityHashMap<>();
    private final List<OperatorId> stateful = new ArrayList<>();
    /** The infos that took each id, to tell a merge's copies (one call site) from two stages of one name. */
    private final Map<String, OperatorInfo> firstInfo = new HashMap<>();
    private final Map<String, Integer> taken = new HashMap<>();
    /** The lineage of each vertex's head: its own name if named, else a digest of what feeds it. */
    private final Map<Integer, String> headLineage = new HashMap<>();
    /** The lineage of each edge's sending half. */
    private final Map<Integer, String> edgeLineage = new HashMap<>();
    /** The id of each edge's sending half. */
    private final Map<Integer, String> edgeIds = new HashMap<>();

    private OperatorIds() {
    }

    /** The ids of every operator of {@code plan}; refuses two stages of one name. */
    public static OperatorIds of(PhysicalPlan plan) {
        OperatorIds ids = new OperatorIds();
        for (VertexPlan v : plan.vertices()) {
            ids.vertex(plan, v);
        }
        return ids;
    }

    /** The id of plan object {@code spec} (a head, a chain operator or a tail of this plan). */
    public OperatorId of(Object spec) {
        OperatorId id = bySpec.get(spec);
        if (id == null) {
            throw new IllegalArgumentException("not an operator of this plan: " + spec);
        }
        return id;
    }

    /**
     * The operators with state a checkpoint captures, in plan order: every head (a source's
     * position, an inbound edge's), timestamp operators, sinks and the sending halves of edges.
     * Stateless chain operators have ids too, but nothing to restore.
     */
    public List<OperatorId> stateful() {
        return List.copyOf(stateful);
    }

    /** {@code text} without call sites ({@code kind@File.java:42} becomes {@code kind}). */
    public static String withoutCallSites(String text) {
        return CALL_SITE.matcher(text).replaceAll("");
    }

    private void vertex(PhysicalPlan plan, VertexPlan v) {
        HeadSpec head = v.head();
        String where = where(head.info(), "v" + v.id());
        List<String> inputs = new ArrayList<>();
        StringBuilder feeds = new StringBuilder();
        for (ShuffleEdge e : plan.edgesInto(v.id())) {
            inputs.add(edgeIds.get(e.id()));
            feeds.append(" <- input ").append(e.input()).append(": ").append(edgeIds.get(e.id()));
        }
        String own = headDescriptor(head) + feeds;
        List<String> lineage = new ArrayList<>();
        for (ShuffleEdge e : plan.edgesInto(v.id())) {
            lineage.add(edgeLineage.get(e.id()));
        }
        OperatorId id = add(head, head.info(), head.info().label() != null, where, headKind(head), own, lineage.toString(), inputs);
        headLineage.put(v.id(), lineageOf(id));
        branch(plan, v, v.chain(), v.tail());
    }

    private void branch(PhysicalPlan plan, VertexPlan v, List<OpSpec> chain, TailSpec tail) {
        String after = headLineage.get(v.id());
        for (OpSpec op : chain) {
            add(op, op.info(), op.info().label() != null, where(op.info(), "v" + v.id()), opKind(op),
                    opDescriptor(op), after, List.of());
        }
        switch (tail) {
            case TailSpec.Sink s -> add(s, s.info(), s.info().label() != null, where(s.info(), "v" + v.id()), "sink",
                    "sink " + s.factory().describe() + (s.copies() > 1 ? " copy " + (s.copy() + 1) + " of " + s.copies() : ""),
                    after, List.of());
            case TailSpec.Shuffle s -> {
                ShuffleEdge edge = plan.edges().get(s.edge());
                HeadSpec to = plan.vertices().get(edge.to()).head();
                String kind = (s instanceof TailSpec.PartialWindow ? "window-partial" : "exchange")
                        + (to.inputs() > 1 ? "-" + edge.input() : "");
                String own = shuffleDescriptor(s);
                OperatorId id = add(s, s.info(), to.info().label() != null, where(to.info(), "v" + edge.to()), kind, own, after, List.of());
                edgeIds.put(edge.id(), id.id());
                edgeLineage.put(edge.id(), lineageOf(id));
            }
            case TailSpec.Fork f -> f.branches().forEach(b -> branch(plan, v, b.chain(), b.tail()));
        }
    }

    /** What an operator downstream of {@code id} records of it: its name if named, else a digest of its descriptor (and so of its lineage). */
    private static String lineageOf(OperatorId id) {
        return id.named() ? id.id() : digest(id.descriptor());
    }

    private static String where(OperatorInfo info, String structural) {
        return info.label() != null ? info.label() : structural;
    }

    /**
     * Files {@code spec} under {@code where#kind} (plus its order among operators of that id); {@code named}: {@code where} is
     * the user's name. A named operator's descriptor is its own settings; an unnamed one's also holds {@code lineage}.
     */
    private OperatorId add(Object spec, OperatorInfo info, boolean named, String where, String kind, String own, String lineage,
                           List<String> inputs) {
        String base = where + "#" + kind;
        OperatorInfo first = firstInfo.putIfAbsent(base, info);
        if (named && first != null && !first.callSite().equals(info.callSite())) {
            throw new IllegalArgumentException("two stages are named '" + where + "': " + first + " and " + info
                    + "; a name identifies a stage's state in checkpoints, so give each stage its own name");
        }
        int n = taken.merge(base, 1, Integer::sum) - 1;
        String id = n == 0 ? base : base + "." + n;
        String descriptor = withoutCallSites(named ? own : own + " after " + digest(lineage));
        OperatorId operator = new OperatorId(id, descriptor, named, inputs, info.toString());
        bySpec.put(spec, operator);
        if (!(spec instanceof OpSpec) || spec instanceof OpSpec.Timestamps) {
            stateful.add(operator);
        }
        return operator;
    }

    private static String headKind(HeadSpec head) {
        return switch (head) {
            case HeadSpec.Source s -> "source";
            case HeadSpec.Exchange x -> "exchange-in";
            case HeadSpec.FinalWindow w -> "window-final";
            case HeadSpec.WindowJoin j -> "window-join";
            case HeadSpec.IntervalJoin j -> "interval-join";
            case HeadSpec.LookupJoin j -> "lookup-join";
            case HeadSpec.KeyedProcess p -> "process";
        };
    }

    private static String headDescriptor(HeadSpec head) {
        return switch (head) {
            case HeadSpec.Source s -> "source " + s.factory().describe();
            case HeadSpec.Exchange x -> "exchange-in " + x.spread().name().toLowerCase(Locale.ROOT);
            case HeadSpec.FinalWindow w -> "window-final " + w.output().describe() + aggregation(w.aggregation());
            case HeadSpec.WindowJoin j -> "window-join " + j.join().type() + " of (" + aggregation(j.left()) + ") and ("
                    + aggregation(j.right()) + ")";
            case HeadSpec.IntervalJoin j -> "interval-join [" + j.lowerMs() + ", " + j.upperMs() + "] of (" + aggregation(j.left())
                    + ") and (" + aggregation(j.right()) + ")";
            case HeadSpec.LookupJoin j -> "lookup-join " + j.type() + " of (" + aggregation(j.stream()) + ") against ("
                    + aggregation(j.table()) + ")";
            case HeadSpec.KeyedProcess p -> "process by " + key(p.key()) + " states " + p.states()
                    + (p.sideOutputs().isEmpty() ? "" : " side outputs " + p.sideOutputs().stream().map(t -> t.name()).toList());
        };
    }

    private static String opKind(OpSpec op) {
        return switch (op) {
            case OpSpec.Map m -> "map";
            case OpSpec.Filter f -> "filter";
            case OpSpec.FlatMap f -> "flatMap";
            case OpSpec.Lookup l -> "lookup";
            case OpSpec.Stamp s -> "stamp";
            case OpSpec.Timestamps t -> "timestamps";
        };
    }

    /** A chain operator's state depends on its kind alone (a timestamp operator's allowed disorder may change). */
    private static String opDescriptor(OpSpec op) {
        return opKind(op);
    }

    private static String shuffleDescriptor(TailSpec.Shuffle tail) {
        return switch (tail) {
            case TailSpec.PartialWindow pw -> "window-partial " + aggregation(pw.aggregation());
            case TailSpec.Exchange x -> "exchange " + x.spread().name().toLowerCase(Locale.ROOT) + (x.key() == null ? "" : " by " + key(x.key()));
        };
    }

    /** An aggregation: its operation, key kind, and whether its frames are packed (their snapshots differ in form). */
    private static String aggregation(WindowAggregation a) {
        return a.describe() + " key " + key(a.key()) + (LongValueFrame.fits(a) ? " packed" : "");
    }

    private static String key(KeySpec key) {
        return switch (key) {
            case KeySpec.LongKey k -> "long";
            case KeySpec.ObjectKey k -> k.keyType() == null ? "object" : k.keyType().getName();
            case KeySpec.NoKey k -> "none";
        };
    }

    private static String digest(String text) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
