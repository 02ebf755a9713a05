package air.runtime.impl.ops;

import air.runtime.api.BadRecordPolicy;
import air.runtime.api.DeadLetter;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.plan.OperatorInfo;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One operator instance's side of its stage's {@link BadRecordPolicy}, for records its user
 * function fails on: a strategy chosen once, when the operator is built, and called only from the
 * operator's catch block, so a record that goes through pays nothing for it.
 * <ul>
 *   <li>{@link #fail}: throws the {@link OperatorFailure} that fails the job, naming the operator
 *       and the record (the tasklet adds where it is in its input), as without a policy;</li>
 *   <li>skip: counts the record in {@code air.records.bad} (tags {@code job}, {@code operator}: the
 *       stage's name, {@code policy}) and logs it, at most one WARN line every
 *       {@link #LOG_EVERY_NANOS} per instance, with how many went unlogged;</li>
 *   <li>dead-letter: as skip, and sends a {@link DeadLetter} down the dead-letter branch that the
 *       plan put behind the operator ({@link air.runtime.plan.TailSpec.Fork#deadLetters}), whose
 *       sink is checkpointed, rolled back and refused when not exactly-once like any other.</li>
 * </ul>
 */
public abstract class BadRecordHandler {

    static final long LOG_EVERY_NANOS = 10_000_000_000L;

    protected final OperatorInfo info;

    BadRecordHandler(OperatorInfo info) {
        this.info = info;
    }

    /** The job fails on the first record the function fails on: the default. */
    public static BadRecordHandler fail(OperatorInfo info) {
        return new Fail(info);
    }

    /**
     * The handler of {@code policy} for one instance of operator {@code info} of job {@code job},
     * counting in {@code meters}; {@code deadLetters}: where its dead letters go, null unless the
     * policy is dead-letter (the plan's dead-letter branch).
     */
    public static BadRecordHandler of(BadRecordPolicy policy, OperatorInfo info, String job, MeterRegistry meters, Inlet<?> deadLetters) {
        if ((policy instanceof BadRecordPolicy.DeadLetters) != (deadLetters != null)) {
            throw new IllegalStateException(info.name() + ": bad-record policy '" + policy.label() + "' "
                    + (deadLetters == null ? "without the dead-letter branch the plan must put behind it" : "with a dead-letter branch behind it"));
        }
        return switch (policy) {
            case BadRecordPolicy.Fail f -> new Fail(info);
            case BadRecordPolicy.Skip s -> new Dropping(info, policy, job, meters, null);
            case BadRecordPolicy.DeadLetters d -> new Dropping(info, policy, job, meters, deadLetters);
        };
    }

    /**
     * The operator's user function failed on {@code record} at event time {@code timestamp}
     * ({@code what}: {@code threw on}, {@code returned null for}); throws under {@code fail},
     * else the record is dropped (and dead-lettered) and the operator goes on with the next.
     */
    public abstract void failed(long timestamp, Object record, String what, RuntimeException cause);

    /** Where the record being handled came from, when the instance knows (a source's reader, in front of the chain). */
    public void originFrom(Supplier<String> origin) {
    }

    /** Records this instance skipped or dead-lettered. */
    public long count() {
        return 0;
    }

    /** See {@link #fail}. */
    private static final class Fail extends BadRecordHandler {
        Fail(OperatorInfo info) {
            super(info);
        }

        @Override
        public void failed(long timestamp, Object record, String what, RuntimeException cause) {
            throw new OperatorFailure(info, what + " " + OperatorFailure.preview(record), cause);
        }
    }

    /** Skip and dead-letter: counted, logged with a rate limit, and under dead-letter sent on as a {@link DeadLetter}. */
    private static final class Dropping extends BadRecordHandler {

        private static final Logger LOG = LoggerFactory.getLogger(BadRecordHandler.class);

        private final BadRecordPolicy policy;
        private final Counter counter;
        private final Inlet<Object> deadLetters;
        private Supplier<String> origin = () -> "unknown";
        private long count;
        private boolean loggedOnce;
        private long lastLogNanos;
        private long unlogged;

        @SuppressWarnings("unchecked")
        Dropping(OperatorInfo info, BadRecordPolicy policy, String job, MeterRegistry meters, Inlet<?> deadLetters) {
            super(info);
            this.policy = policy;
            this.deadLetters = (Inlet<Object>) deadLetters;
            this.counter = Counter.builder("air.records.bad").description("records that could not be used, skipped or dead-lettered")
                    .tags("job", job, "operator", info.name(), "policy", policy.label()).register(meters);
        }

        @Override
        public void originFrom(Supplier<String> origin) {
            this.origin = origin;
        }

        @Override
        public void failed(long timestamp, Object record, String what, RuntimeException cause) {
            String from = originOf();
            count++;
            counter.increment();
            if (deadLetters != null) {
                deadLetters.accept(timestamp, new DeadLetter(from, info.toString(), raw(record), cause.toString()));
            }
            long now = System.nanoTime();
            if (!loggedOnce || now - lastLogNanos >= LOG_EVERY_NANOS) {
                LOG.warn("{} {} ({}; bad-record policy '{}'): {}{}", info, what + " " + OperatorFailure.preview(record), from,
                        policy.label(), cause, unlogged == 0 ? "" : " (" + unlogged + " more since the last such line)");
                loggedOnce = true;
                lastLogNanos = now;
                unlogged = 0;
            } else {
                unlogged++;
            }
        }

        private String originOf() {
            try {
                String s = origin.get();
                return s == null ? "unknown" : s;
            } catch (RuntimeException e) {
                return "unknown (" + e + ")";
            }
        }

        @Override
        public long count() {
            return count;
        }
    }

    /** A dead letter's bytes: a text record's UTF-8, a byte array as it is, anything else its {@code toString} as UTF-8. */
    static byte[] raw(Object record) {
        if (record instanceof byte[] bytes) {
            return bytes.clone();
        }
        String text;
        try {
            text = String.valueOf(record);
        } catch (RuntimeException e) {
            text = record.getClass().getName() + " (toString failed: " + e + ")";
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
