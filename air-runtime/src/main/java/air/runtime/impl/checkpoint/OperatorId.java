package air.runtime.impl.checkpoint;

import java.util.List;
import java.util.Objects;

/**
 * What a checkpoint files one operator's state under, and what it checks before handing that state
 * back: the operator's stable {@code id} ({@link OperatorIds} says how it is made: the user's
 * {@code named(...)}, else the plan's structure, never a source line), its {@code descriptor} (its
 * kind and the settings its state depends on: the window, the key type, the aggregation, its
 * inputs; for an unnamed operator also a digest of what feeds it), whether the user {@code named}
 * it, the ids of the operators whose edges feed it ({@code inputs}, empty but for a vertex's head),
 * and {@code shown}, the operator as a person finds it in the code (with its call site), for messages.
 */
public record OperatorId(String id, String descriptor, boolean named, List<String> inputs, String shown) {

    public OperatorId {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(descriptor, "descriptor");
        inputs = List.copyOf(inputs);
    }
}
