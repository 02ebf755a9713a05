package air.runtime.plan;

import air.runtime.api.AggregateOp;
import air.runtime.api.Codec;
import air.runtime.api.Codecs;
import air.runtime.api.Timestamped;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.Arrays;

/**
 * What a count window's partial half keeps per (pane, key) and ships to the key's owner: each
 * record as the user's accumulator of it alone, with its event time, in the order the records
 * came. They stay apart because the owner cuts a key's records into windows of exactly
 * {@code n}, wherever a pane's records fall.
 */
public final class CountPart {

    private long[] times = new long[4];
    private Object[] accumulators = new Object[4];
    private int size;

    /** The records in it. */
    public int size() {
        return size;
    }

    /** The event time of record {@code i}. */
    public long time(int i) {
        return times[i];
    }

    /** The user's accumulator of record {@code i} alone. */
    public Object accumulator(int i) {
        return accumulators[i];
    }

    /** Appends a record's accumulator and time. */
    public void add(long time, Object accumulator) {
        if (size == times.length) {
            times = Arrays.copyOf(times, size * 2);
            accumulators = Arrays.copyOf(accumulators, size * 2);
        }
        times[size] = time;
        accumulators[size++] = accumulator;
    }

    /**
     * The aggregation a count window's partial half runs: one accumulator of {@code op} per record,
     * in arrival order (records come stamped with their time). Its codec is {@code op}'s, per
     * record ({@code op}'s codec, or the serializer when it has none). {@code finish} combines every record: the owner
     * does not call it, it cuts windows of {@code n} itself.
     */
    @SuppressWarnings("unchecked")
    public static AggregateOp<Timestamped<Object>, CountPart, Object> aggregation(AggregateOp<?, ?, ?> userOp) {
        AggregateOp<Object, Object, Object> op = (AggregateOp<Object, Object, Object>) userOp;
        Codec<Object> inner = Codecs.orSerialized(op.accumulatorCodec());
        Codec<CountPart> codec = new Codec<>() {
            @Override
            public void write(CountPart p, WireOut out) {
                out.putInt(p.size);
                for (int i = 0; i < p.size; i++) {
                    out.putLong(p.times[i]);
                    inner.write(p.accumulators[i], out);
                }
            }

            @Override
            public CountPart read(WireIn in) {
                int n = in.getCount(8);
                CountPart p = new CountPart();
                for (int i = 0; i < n; i++) {
                    long t = in.getLong();
                    p.add(t, inner.read(in));
                }
                return p;
            }
        };
        return new AggregateOp<>() {
            @Override
            public CountPart create() {
                return new CountPart();
            }

            @Override
            public void accumulate(CountPart acc, Timestamped<Object> item) {
                Object one = op.create();
                op.accumulate(one, item.value());
                acc.add(item.timestamp(), one);
            }

            /** Appends {@code other}'s records after {@code acc}'s (their accumulators are shared, never changed). */
            @Override
            public void combine(CountPart acc, CountPart other) {
                for (int i = 0; i < other.size; i++) {
                    acc.add(other.times[i], other.accumulators[i]);
                }
            }

            @Override
            public Object finish(CountPart acc) {
                Object all = op.create();
                for (int i = 0; i < acc.size; i++) {
                    op.combine(all, acc.accumulators[i]);
                }
                return op.finish(all);
            }

            @Override
            public Codec<CountPart> accumulatorCodec() {
                return codec;
            }

            @Override
            public String name() {
                return op.name();
            }
        };
    }
}
