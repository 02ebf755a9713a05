package air.runtime.api;

import java.util.Locale;
import java.util.Objects;

/**
 * Declares one piece of per-key state of a keyed process function: its name, its kind (a value, a
 * list or a map, the type parameter {@code S} says which) and the codecs that carry it into
 * checkpoints and replicas. Declare descriptors once, pass them to {@code process(fn, states...)}
 * and read the current key's state with {@link ProcessContext#state}.
 *
 * <p>Without codecs the state goes to checkpoints and replicas through the JVM's {@link Serializer}
 * (Kryo by default); codecs are shorter and faster. A time to live ({@link #withTtl}) is
 * measured in <b>event time</b>: a key's state written while handling time {@code w} is gone for
 * handling at time {@code t >= w + ttl} (the newest write counts), and dropped from memory once
 * the operator's input is complete past {@code w + ttl}, so which records see it does not depend
 * on timing or on the order records arrive in. Only a record late enough to be behind the
 * operator's progress (its input already complete past the record's time) may find state already
 * dropped that its own time would still see.
 *
 * @param <S> the state as the function sees it: {@link ValueState}, {@link ListState} or {@link MapState}
 */
public final class StateDescriptor<S> {

    /** The three kinds of state. */
    public enum Kind { VALUE, LIST, MAP }

    private final String name;
    private final Kind kind;
    private final Codec<?> codec;
    private final Codec<?> mapKeyCodec;
    private final long ttlMs;

    private StateDescriptor(String name, Kind kind, Codec<?> codec, Codec<?> mapKeyCodec, long ttlMs) {
        Objects.requireNonNull(name, "StateDescriptor: name is null");
        if (name.isBlank()) {
            throw new IllegalArgumentException("StateDescriptor: name is blank");
        }
        this.name = name;
        this.kind = kind;
        this.codec = codec;
        this.mapKeyCodec = mapKeyCodec;
        this.ttlMs = ttlMs;
    }

    /** A value per key, in checkpoints and replicas by {@code codec}. */
    public static <V> StateDescriptor<ValueState<V>> value(String name, Codec<V> codec) {
        return new StateDescriptor<>(name, Kind.VALUE, Objects.requireNonNull(codec, "StateDescriptor.value(" + name + ", codec): codec is null"),
                null, 0);
    }

    /** A value per key without a codec: checkpointed and replicated through the serializer. */
    public static <V> StateDescriptor<ValueState<V>> value(String name) {
        return new StateDescriptor<>(name, Kind.VALUE, null, null, 0);
    }

    /** A list per key, its elements in checkpoints and replicas by {@code elementCodec}. */
    public static <E> StateDescriptor<ListState<E>> list(String name, Codec<E> elementCodec) {
        return new StateDescriptor<>(name, Kind.LIST,
                Objects.requireNonNull(elementCodec, "StateDescriptor.list(" + name + ", elementCodec): elementCodec is null"), null, 0);
    }

    /** A list per key without a codec: checkpointed and replicated through the serializer. */
    public static <E> StateDescriptor<ListState<E>> list(String name) {
        return new StateDescriptor<>(name, Kind.LIST, null, null, 0);
    }

    /** A map per key, its entries in checkpoints and replicas by {@code keyCodec} and {@code valueCodec}. */
    public static <MK, MV> StateDescriptor<MapState<MK, MV>> map(String name, Codec<MK> keyCodec, Codec<MV> valueCodec) {
        String call = "StateDescriptor.map(" + name + ", keyCodec, valueCodec): ";
        return new StateDescriptor<>(name, Kind.MAP, Objects.requireNonNull(valueCodec, call + "valueCodec is null"),
                Objects.requireNonNull(keyCodec, call + "keyCodec is null"), 0);
    }

    /** A map per key without codecs: checkpointed and replicated through the serializer. */
    public static <MK, MV> StateDescriptor<MapState<MK, MV>> map(String name) {
        return new StateDescriptor<>(name, Kind.MAP, null, null, 0);
    }

    /**
     * This descriptor with a time to live of {@code eventTimeMs} of event time after the key's
     * newest write of it (see the class comment). Needs timestamps upstream of the process stage.
     */
    public StateDescriptor<S> withTtl(long eventTimeMs) {
        if (eventTimeMs <= 0) {
            throw new IllegalArgumentException("StateDescriptor " + name + ".withTtl(" + eventTimeMs + "): the time to live must be > 0 ms");
        }
        return new StateDescriptor<>(name, kind, codec, mapKeyCodec, eventTimeMs);
    }

    public String name() {
        return name;
    }

    public Kind kind() {
        return kind;
    }

    /** The value codec (a value's, a list element's, a map value's); null when none was given. */
    public Codec<?> codec() {
        return codec;
    }

    /** A map's key codec; null for values and lists, or when none was given. */
    public Codec<?> mapKeyCodec() {
        return mapKeyCodec;
    }

    /** The time to live in event-time milliseconds; 0 when the state lives until cleared. */
    public long ttlMs() {
        return ttlMs;
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(Locale.ROOT) + " '" + name + "'" + (ttlMs > 0 ? " ttl " + ttlMs + "ms" : "");
    }
}
