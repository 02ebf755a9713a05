package air.runtime.impl.exec;

import air.runtime.JobConfig;
import air.runtime.impl.ops.Inlet;
import air.runtime.impl.ops.KeyedFrameFactory;
import air.runtime.operator.Operator;
import air.runtime.plan.HeadSpec;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.WindowAggregation;

/**
 * A head operator built outside a job exactly as a job builds it ({@link OperatorFactory#head}),
 * and the frames its inputs are made of: for tests that drive one operator by hand (air-test's
 * {@code OperatorHarness}) without copying the engine's wiring, which would drift from it.
 */
public final class StandaloneHeads {

    private StandaloneHeads() {
    }

    /** The operator of {@code spec} for instance {@code global} of {@code n}, emitting into {@code next}. */
    public static Operator head(JobConfig config, HeadSpec spec, int global, int n, Inlet<?> next) {
        return new OperatorFactory(config).head(0, spec, global, n, next, null).op();
    }

    /** The frames the partial half of {@code aggregation} fills (so the partials a test makes are those a job ships). */
    public static KeyedFrameFactory<?> frames(JobConfig config, OperatorInfo info, WindowAggregation aggregation) {
        return new OperatorFactory(config).frameFactory(0, 0, info, aggregation);
    }
}
