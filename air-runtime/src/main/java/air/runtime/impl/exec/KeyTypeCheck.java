package air.runtime.impl.exec;

import air.runtime.JobConfig;
import air.runtime.plan.HeadSpec;
import air.runtime.plan.KeySpec;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.TailSpec;
import air.runtime.plan.VertexPlan;
import air.runtime.plan.WindowAggregation;
import air.runtime.serial.StableHash;
import air.runtime.serial.UnstableKeyException;

/**
 * At submission: every object key whose type the plan knows ({@code keyBy(fn, type)}) must hash the
 * same on every JVM ({@link StableHash}); a job keyed otherwise is refused, naming the type and the
 * {@code keyBy} call. Keys of an undeclared type are checked as each new key class is met, at run time.
 */
public final class KeyTypeCheck {

    private KeyTypeCheck() {
    }

    public static void requireStableKeys(PhysicalPlan plan, JobConfig config) {
        for (VertexPlan v : plan.vertices()) {
            switch (v.head()) {
                case HeadSpec.KeyedProcess p -> check(p.key(), config);
                case HeadSpec.FinalWindow w -> check(w.aggregation(), config);
                case HeadSpec.WindowJoin j -> {
                    check(j.left(), config);
                    check(j.right(), config);
                }
                case HeadSpec.IntervalJoin j -> {
                    check(j.left(), config);
                    check(j.right(), config);
                }
                case HeadSpec.LookupJoin j -> {
                    check(j.stream(), config);
                    check(j.table(), config);
                }
                default -> { }
            }
            for (TailSpec.Shuffle t : v.shuffleTails()) {
                switch (t) {
                    case TailSpec.PartialWindow pw -> check(pw.aggregation(), config);
                    case TailSpec.Exchange x -> check(x.key(), config);
                }
            }
        }
    }

    private static void check(WindowAggregation agg, JobConfig config) {
        check(agg.key(), config);
    }

    private static void check(KeySpec key, JobConfig config) {
        if (key instanceof KeySpec.ObjectKey k && k.keyType() != null) {
            try {
                StableHash.requireStable(k.keyType());
            } catch (UnstableKeyException e) {
                throw new IllegalArgumentException("job '" + config.name() + "': " + k.info().name() + ": " + e.getMessage(), e);
            }
        }
    }
}
