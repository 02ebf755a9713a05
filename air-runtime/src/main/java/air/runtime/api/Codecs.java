package air.runtime.api;

import air.wire.WireIn;
import air.wire.WireOut;

/** Codecs of common value types, for process-function state and records that cross peers. */
public final class Codecs {

    private Codecs() {
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
