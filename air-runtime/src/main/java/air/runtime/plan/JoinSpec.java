package air.runtime.plan;

import air.runtime.api.JoinFunction;
import air.runtime.api.JoinType;
import java.util.Objects;

/** What a window join emits: which keys ({@code type}) and the user's function over both sides' results. */
public record JoinSpec(JoinType type, JoinFunction<?, ?, ?, ?> joinFn) {
    public JoinSpec {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(joinFn, "joinFn");
    }
}
