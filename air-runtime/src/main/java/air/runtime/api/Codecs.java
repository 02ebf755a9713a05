package air.runtime.api;

import air.runtime.serial.Serializers;
import air.wire.WireIn;
import air.wire.WireOut;

/**
 * Codecs of common value types, for process-function state and records that cross peers. A codec is
 * optional everywhere: without one, values go through the JVM's {@link Serializer} ({@link #serialized()},
 * Kryo by default), which writes each value's class name too; a codec is shorter and faster.
 */
public final class Codecs {

    private Codecs() {
    }

    /** Values of any type through the JVM's {@link Serializer} (their class name written with them). */
    @SuppressWarnings("unchecked")
    public static <T> Codec<T> serialized() {
        return (Codec<T>) (Codec<?>) Serializers.get();
    }

    /** {@code codec}, or {@link #serialized()} when it is null. */
    public static <T> Codec<T> orSerialized(Codec<T> codec) {
        return codec != null ? codec : serialized();
    }

    /** A {@code Long}: eight bytes. */
    public static final Codec<Long> LONG = new Codec<>() {
        @Override
        public void write(Long value, WireOut out) {
            out.putLong(value);
        }

        @Override
        public Long read(WireIn in) {
            return in.getLong();
        }
    };

    /** An {@code Integer}: four bytes. */
    public static final Codec<Integer> INT = new Codec<>() {
        @Override
        public void write(Integer value, WireOut out) {
            out.putInt(value);
        }

        @Override
        public Integer read(WireIn in) {
            return in.getInt();
        }
    };

    /** A {@code Double}: eight bytes. */
    public static final Codec<Double> DOUBLE = new Codec<>() {
        @Override
        public void write(Double value, WireOut out) {
            out.putDouble(value);
        }

        @Override
        public Double read(WireIn in) {
            return in.getDouble();
        }
    };

    /** A {@code String}. */
    public static final Codec<String> STRING = new Codec<>() {
        @Override
        public void write(String value, WireOut out) {
            out.putString(value);
        }

        @Override
        public String read(WireIn in) {
            return in.getString();
        }
    };
}
