package air.runtime.plan;

import air.runtime.api.AggregateOp;
import air.runtime.api.Codec;
import air.runtime.api.Codecs;
import air.runtime.api.Timestamped;
import air.wire.WireIn;
import air.wire.WireOut;

/**
 * What a session window's partial half keeps per (pane, key) and ships to the key's owner: the
 * event times of the first and the last record it holds and the user's accumulator of them. A
 * pane is never longer than the gap, so the records of one pane and key always form one part of a
 * single session; the owner merges parts whose {@code [first, last + gap)} overlap or touch.
 */
public final class SessionPart {

    private long first = Long.MAX_VALUE;
    private long last = Long.MIN_VALUE;
    private final Object accumulator;

    private SessionPart(Object accumulator) {
        this.accumulator = accumulator;
    }

    /** A part as a snapshot holds it. */
    public static SessionPart of(long first, long last, Object accumulator) {
        SessionPart p = new SessionPart(accumulator);
        p.first = first;
        p.last = last;
        return p;
    }

    /** The event time of the earliest record in it. */
    public long first() {
        return first;
    }

    /** The event time of the latest record in it. */
    public long last() {
        return last;
    }

    /** The user's accumulator of its records. */
    public Object accumulator() {
        return accumulator;
    }

    /**
     * The aggregation a session window's partial half runs: {@code op} over the records, plus
     * their first and last event time (records come stamped with their time). Its accumulator
     * codec is {@code op}'s (or the serializer when it has none) with the two times ahead.
     */
    @SuppressWarnings("unchecked")
    public static AggregateOp<Timestamped<Object>, SessionPart, Object> aggregation(AggregateOp<?, ?, ?> userOp) {
        AggregateOp<Object, Object, Object> op = (AggregateOp<Object, Object, Object>) userOp;
        Codec<Object> inner = Codecs.orSerialized(op.accumulatorCodec());
        Codec<SessionPart> codec = new Codec<>() {
            @Override
            public void write(SessionPart p, WireOut out) {
                out.putLong(p.first).putLong(p.last);
                inner.write(p.accumulator, out);
            }

            @Override
            public SessionPart read(WireIn in) {
                long first = in.getLong();
                long last = in.getLong();
                return of(first, last, inner.read(in));
            }
        };
        return new AggregateOp<>() {
            @Override
            public SessionPart create() {
                return new SessionPart(op.create());
            }

            @Override
            public void accumulate(SessionPart acc, Timestamped<Object> item) {
                long t = item.timestamp();
                if (t < acc.first) {
                    acc.first = t;
                }
                if (t > acc.last) {
                    acc.last = t;
                }
                op.accumulate(acc.accumulator, item.value());
            }

            @Override
            public void combine(SessionPart acc, SessionPart other) {
                acc.first = Math.min(acc.first, other.first);
                acc.last = Math.max(acc.last, other.last);
                op.combine(acc.accumulator, other.accumulator);
            }

            @Override
            public Object finish(SessionPart acc) {
                return op.finish(acc.accumulator);
            }

            @Override
            public Codec<SessionPart> accumulatorCodec() {
                return codec;
            }

            @Override
            public String name() {
                return op.name();
            }
        };
    }
}
