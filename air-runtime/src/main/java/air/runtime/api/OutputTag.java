package air.runtime.api;

import java.util.Objects;

/**
 * Names a side output of a keyed process function: {@link ProcessContext#output} sends a value
 * there, and the DSL reads it as a stage of its own ({@code processed.sideOutput(tag)}). Tags are
 * equal by name; one process stage declares each name once.
 *
 * @param <X> the type of the side output's records
 */
public final class OutputTag<X> {

    private final String name;

    private OutputTag(String name) {
        this.name = name;
    }

    /** A tag named {@code name} (not blank). */
    public static <X> OutputTag<X> of(String name) {
        Objects.requireNonNull(name, "OutputTag.of(name): name is null");
        if (name.isBlank()) {
            throw new IllegalArgumentException("OutputTag.of(name): name is blank");
        }
        return new OutputTag<>(name);
    }

    public String name() {
        return name;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OutputTag<?> t && t.name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return "side output '" + name + "'";
    }
}
