package air.kafka;

import air.runtime.api.CommittingSinkWriter;
import air.runtime.api.OwnerToken;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes every record to a Kafka topic exactly once, in Kafka transactions committed in two
 * phases with the job's checkpoints: made by {@link KafkaSinks#exactlyOnce}. A consumer with
 * {@code isolation.level=read_committed} sees each record of the job once, and only once the
 * checkpoint covering it is complete everywhere; a failure, a rollback or the loss of a peer
 * never takes back what it saw nor shows it again.
 *
 * <p><b>How.</b> Each sink instance owns a small pool of transactional ids,
 * {@code <prefix>-<layout>-<instance>-<slot>} ({@link #transactionalIdPool}, 4 by default), one
 * producer each. The records between two checkpoints go into one transaction, begun at the first
 * of them on a free id of the pool. At the checkpoint barrier ({@code snapshot}, the pre-commit)
 * the writer flushes that producer, so that every record is in the topic's log, still invisible
 * to {@code read_committed} consumers, and names the transaction in its state; the next records
 * go into a transaction on another id. Once the checkpoint is complete on every peer, the engine's
 * committer thread commits the transaction, together with a <em>commit marker</em>: the
 * checkpoint's number, written in the same transaction as the offset of partition 0 of the topic
 * in the consumer group {@code <prefix>-<layout>-<instance>} (a group no consumer joins). The
 * marker is visible exactly when the records are: it says, after any failure, which pre-committed
 * transactions were committed.
 *
 * <p><b>Restore.</b> The state also holds the records of every transaction that is pre-committed
 * and not known to be committed (a write-ahead log of about one checkpoint interval of output).
 * A restore first fences every id of the pool ({@code initTransactions}: whatever the failed run
 * left open is aborted, and its producers, if still alive somewhere, can no longer write or
 * commit), then reads the marker, and writes the pending transactions the marker does not cover
 * again, in one new transaction that commits them and moves the marker on. Restoring twice from
 * the same checkpoint writes nothing twice: the second restore finds the marker. On another
 * layout ({@code restoreRescaled}) each writer does the same for the earlier instances it takes
 * over, with their ids, and then writes with ids of a new layout, named after the checkpoint and
 * the parallelism, that no earlier layout used.
 *
 * <p><b>What a {@code read_committed} consumer sees when a peer dies</b> (killed, say, with no
 * time to abort anything): every record of every transaction committed before, once; none of the
 * dead peer's transactions, open or pre-committed, until the job resumes. Those stay open on the
 * brokers, and on each partition they wrote to, the consumer stops at the first of their records
 * (Kafka's last stable offset), also before records that other instances committed after it,
 * until the resumed job's restore fences and aborts them (or {@code transaction.timeout.ms}
 * passes). The restore then writes again, once, the pre-committed records the marker does not
 * cover, and the job replays the rest from its checkpoint; nothing the consumer saw comes again.
 * A job that fails in the process ({@code abort}) aborts its transactions at once, so that they
 * hold back no consumer while it is down.
 *
 * <p><b>Why not Kafka's two-phase commit (KIP-939)?</b> It would let the restore commit the very
 * transaction the failed run prepared (the state would hold a {@code PreparedTxnState} instead of
 * the records). kafka-clients 4.4.0 does not offer it: {@code KafkaProducer} has no
 * {@code initTransactions(boolean keepPreparedTxn)}, {@code prepareTransaction()} nor
 * {@code completeTransaction(PreparedTxnState)} (removed until the feature is finished,
 * KAFKA-19414), {@code InitProducerId} version 6 is an unstable protocol version, and the 4.4.0
 * broker answers {@code keepPreparedTxn=true} with {@code UNSUPPORTED_VERSION}. Resuming a
 * transaction by setting a producer's id and epoch through reflection (what Flink does) depends on
 * private fields of the client and loses the transaction's records whenever the broker aborts it
 * first, after {@code transaction.timeout.ms}; the write-ahead log loses nothing then.
 *
 * <p><b>The transaction timeout.</b> A transaction stays open from its first record to the commit
 * after its checkpoint completes: about one checkpoint interval plus the time the checkpoint
 * takes. {@code transaction.timeout.ms} must exceed that by a margin; the default here is
 * {@linkplain #DEFAULT_TRANSACTION_TIMEOUT 5 minutes} (the broker's
 * {@code transaction.max.timeout.ms} must allow it; its default is 15 minutes). When the broker
 * aborts a transaction before its commit, the commit fails, the job fails and its restore writes
 * those records again: nothing is lost, but a job whose checkpoints are always slower than the
 * timeout never gets ahead. It is also how long a transaction of a dead job that is never restored
 * holds back {@code read_committed} consumers of the partitions it wrote to.
 *
 * <p><b>Limits.</b> Only in jobs with checkpoints or replicas: the writer refuses its first record
 * in a job without (use {@link KafkaSinks#atLeastOnce} there). Two sinks writing with the same
 * prefix fence each other: each job, and each exactly-once sink of a job writing to the same
 * topic, needs its own ({@link #transactionalIdPrefix}, by default {@code air-<topic>}); a restore
 * that finds another writer's marker fails, naming it. A marker
 * that is gone (deleted by hand, or expired after {@code offsets.retention.minutes} without a
 * commit, 7 days by default) makes a restore write its pending transactions again: they may then
 * be there twice. Records without a key may land on other partitions when written again. The
 * principal needs the Write and Describe ACLs on its transactional ids and Read on its groups.
 *
 * <p><b>End of input.</b> When a sink instance's input ends, the engine holds its {@code close}
 * until the job's end: the snapshot of its last state pre-commits the records since its last
 * checkpoint under the first checkpoint that holds that state, and they are committed when such a
 * checkpoint is complete — at the latest the job's final checkpoint, which every peer writes once
 * its part ended well. {@code close} then has nothing left to commit. A failure before that
 * restores an earlier checkpoint, and the restore aborts and writes those records again, once.
 * (A writer that commits in {@code close} all the same — a commit that failed at the final
 * checkpoint — marks that in its marker, and a restore that then finds the instance not ended in
 * its state says so in a WARN: its records after that checkpoint are there twice.)
 */
public final class KafkaExactlyOnceSink<T> implements SinkFactory<T> {

    /** The default {@code transaction.timeout.ms}: 5 minutes. */
    public static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofMinutes(5);
    /** The default number of transactional ids per sink instance. */
    public static final int DEFAULT_POOL_SIZE = 4;

    private static final Logger LOG = LoggerFactory.getLogger(KafkaExactlyOnceSink.class);
    private static final int STATE_VERSION = 1;
    private static final String FIRST_LAYOUT = "g0";
    private static final String MARKER = "air-exactly-once ";
    /** After the nonce in a marker written by {@code close}: the writer committed everything up to its end of input. */
    private static final String ENDED = " ended";
    private static final Duration MARKER_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration ABORT_WAIT = Duration.ofSeconds(10);
    private static final Set<String> OWN = Set.of(ProducerConfig.ACKS_CONFIG, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ProducerConfig.TRANSACTIONAL_ID_CONFIG,
            ProducerConfig.TRANSACTION_TWO_PHASE_COMMIT_ENABLE_CONFIG);

    /** What tests watch and hold back: checkpoints pre-committed and committed, restores. */
    interface Probe {
        Probe NONE = new Probe() {
        };

        /** Whether the transaction of {@code checkpointId} may be committed now (a test holds it back with false). */
        default boolean mayCommit(int instance, long checkpointId) {
            return true;
        }

        default void preCommitted(int instance, long checkpointId, int records) {
        }

        default void commitAsked(int instance, long checkpointId) {
        }

        default void committed(int instance, long checkpointId, int records) {
        }

        /** A restore ended, having written {@code rewritten} records of pending transactions again. */
        default void restored(int instance, int rewritten) {
        }

        /** Whether a failed writer aborts its transactions; false: it vanishes as a killed process would, leaving them open. */
        default boolean abortsOnFailure() {
            return true;
        }
    }

    private final String bootstrap;
    private final String topic;
    private final Function<? super T, byte[]> valueFn;
    private final Function<? super T, byte[]> keyFn;
    private final Map<String, Object> properties;
    private final String prefix;
    private final int poolSize;
    private final Probe probe;

    KafkaExactlyOnceSink(String bootstrap, String topic, Function<? super T, byte[]> valueFn, Function<? super T, byte[]> keyFn,
                         Map<String, Object> properties, String prefix, int poolSize, Probe probe) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.valueFn = valueFn;
        this.keyFn = keyFn;
        this.properties = properties;
        this.prefix = prefix;
        this.poolSize = poolSize;
        this.probe = probe;
    }

    /**
     * What this sink's transactional ids and marker groups begin with (default {@code air-<topic>}).
     * Every job writing to Kafka exactly once needs a prefix of its own: two jobs with the same
     * one fence each other's producers. Changing it takes effect at a fresh start; a restore goes
     * on with the ids its checkpoint names.
     */
    public KafkaExactlyOnceSink<T> transactionalIdPrefix(String transactionalIdPrefix) {
        KafkaSources.requireText(transactionalIdPrefix, "transactionalIdPrefix");
        return new KafkaExactlyOnceSink<>(bootstrap, topic, valueFn, keyFn, properties, transactionalIdPrefix, poolSize, probe);
    }

    /**
     * How many transactional ids (and producers) each sink instance has (default 4, at least 2):
     * one takes the records being written, the others hold transactions pre-committed by
     * checkpoints not complete yet. When all are taken, the writer waits for a commit.
     */
    public KafkaExactlyOnceSink<T> transactionalIdPool(int size) {
        if (size < 2) {
            throw new IllegalArgumentException(describe() + ".transactionalIdPool(size): at least 2, got " + size);
        }
        return new KafkaExactlyOnceSink<>(bootstrap, topic, valueFn, keyFn, properties, prefix, size, probe);
    }

    /**
     * A Kafka producer property ({@code transaction.timeout.ms}, {@code linger.ms},
     * {@code compression.type}, security, ...), given to every producer this sink makes, and, where
     * it is one, to the consumer that reads the commit markers; it overrides the sink's own,
     * except {@code acks=all}, idempotence, the transactional id and the serialisers.
     */
    public KafkaExactlyOnceSink<T> property(String key, Object value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        if (ProducerConfig.TRANSACTION_TWO_PHASE_COMMIT_ENABLE_CONFIG.equals(key)) {
            throw new IllegalArgumentException(describe() + ": " + key + " (KIP-939) is not usable with kafka-clients 4.4: see KafkaExactlyOnceSink");
        }
        if (OWN.contains(key)) {
            throw new IllegalArgumentException(describe() + ": " + key
                    + " is the sink's own (acks=all, idempotence on, its transactional ids, bytes)");
        }
        Map<String, Object> p = new LinkedHashMap<>(properties);
        p.put(key, value);
        return new KafkaExactlyOnceSink<>(bootstrap, topic, valueFn, keyFn, Map.copyOf(p), prefix, poolSize, probe);
    }

    /** The same sink, watched (tests). */
    KafkaExactlyOnceSink<T> probe(Probe p) {
        return new KafkaExactlyOnceSink<>(bootstrap, topic, valueFn, keyFn, properties, prefix, poolSize, Objects.requireNonNull(p, "probe"));
    }

    /** What the transactional ids begin with. */
    public String transactionalIdPrefix() {
        return prefix != null ? prefix : "air-" + topic;
    }

    /** {@code transaction.timeout.ms}, as set or by default. */
    Duration transactionTimeout() {
        Object v = properties.get(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG);
        if (v == null) {
            return DEFAULT_TRANSACTION_TIMEOUT;
        }
        return Duration.ofMillis(v instanceof Number n ? n.longValue() : Long.parseLong(v.toString().strip()));
    }

    @Override
    public SinkWriter<T> open(int instance, int parallelism) {
        return new Writer<>(this, instance, parallelism);
    }

    @Override
    public String describe() {
        return "kafka(" + topic + "@" + bootstrap + ", exactly-once, transactional ids " + transactionalIdPrefix() + "-*)";
    }

    private KafkaProducer<byte[], byte[]> newProducer(String transactionalId) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "air-" + transactionalId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) DEFAULT_TRANSACTION_TIMEOUT.toMillis());
        p.putAll(properties);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * A consumer of the marker group {@code group} that joins nothing: it reads the group's marker
     * ({@code read_committed}: once no transaction of the group's ids is pending) and gives the
     * group's metadata that a transaction names the group by.
     */
    private KafkaConsumer<byte[], byte[]> markerConsumer(String group) {
        Map<String, Object> p = new HashMap<>();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.forEach((k, v) -> {
            if (ConsumerConfig.configNames().contains(k)) {
                p.put(k, v); // security and the like: the producer's own settings are no consumer's
            }
        });
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "air-" + group + "-marker");
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** The partition under which the commit marker is kept: partition 0 of the topic written. */
    private TopicPartition markerPartition() {
        return new TopicPartition(topic, 0);
    }

    /** A record written, kept until its transaction is committed (the write-ahead log). */
    private record Rec(byte[] key, byte[] value) {
    }

    /** A pre-committed transaction: the slot of the pool it is open on, and its records. */
    private record Pending(int slot, List<Rec> records) {
    }

    /** A marker group as a transaction names it, and the marker found in it (null: none). */
    private record Marker(ConsumerGroupMetadata group, OffsetAndMetadata found) {
    }

    /**
     * A writer's saved state: its ids, its pool's size, its marker's nonce, whether it was closed
     * (its input ended: the engine keeps that state for later checkpoints), its pending
     * transactions by checkpoint.
     */
    private record Saved(String idBase, int poolSize, String nonce, boolean ended, TreeMap<Long, Pending> pending) {
    }

    private static byte[] encode(String idBase, int poolSize, String nonce, boolean ended, SortedMap<Long, Pending> pending) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(STATE_VERSION);
            out.writeUTF(idBase);
            out.writeInt(poolSize);
            out.writeUTF(nonce);
            out.writeBoolean(ended);
            out.writeInt(pending.size());
            for (Map.Entry<Long, Pending> e : pending.entrySet()) {
                out.writeLong(e.getKey());
                out.writeInt(e.getValue().slot());
                out.writeInt(e.getValue().records().size());
                for (Rec r : e.getValue().records()) {
                    writeBytes(out, r.key());
                    writeBytes(out, r.value());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        if (b == null) {
            out.writeInt(-1);
        } else {
            out.writeInt(b.length);
            out.write(b);
        }
    }

    private Saved decode(byte[] state) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(state))) {
            int version = in.readInt();
            if (version != STATE_VERSION) {
                throw new IllegalStateException(describe() + ": a saved state of version " + version + ", this writer reads " + STATE_VERSION);
            }
            String idBase = in.readUTF();
            int pool = in.readInt();
            String nonce = in.readUTF();
            boolean ended = in.readBoolean();
            TreeMap<Long, Pending> pending = new TreeMap<>();
            for (int n = in.readInt(); n > 0; n--) {
                long checkpoint = in.readLong();
                int slot = in.readInt();
                int count = in.readInt();
                List<Rec> records = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    records.add(new Rec(readBytes(in), readBytes(in)));
                }
                pending.put(checkpoint, new Pending(slot, records));
            }
            return new Saved(idBase, pool, nonce, ended, pending);
        } catch (IOException e) {
            throw new IllegalStateException(describe() + ": a saved state that cannot be read: " + e, e);
        }
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int n = in.readInt();
        return n < 0 ? null : in.readNBytes(n);
    }

    /** The writer of one instance. */
    private static final class Writer<T> implements CommittingSinkWriter<T> {

        private final KafkaExactlyOnceSink<T> sink;
        private final int instance;
        private final int parallelism;
        /** Guards {@link #pending}; the writer waits on it for a free slot. */
        private final Object lock = new Object();
        /** One committer at a time: the engine's, or close and abort. */
        private final ReentrantLock commitLock = new ReentrantLock();
        /** Pre-committed transactions by checkpoint, not committed yet. */
        private final TreeMap<Long, Pending> pending = new TreeMap<>();
        private final AtomicReference<Exception> sendFailed = new AtomicReference<>();
        private final Callback onSent = (metadata, e) -> {
            if (e != null) {
                sendFailed.compareAndSet(null, e);
            }
        };
        /** A commit that failed: the writer fails with it at its next write or checkpoint. */
        private final AtomicReference<RuntimeException> broken = new AtomicReference<>();
        /** The pool, slot by slot: set by the first write or the restore, before any commit. */
        private volatile List<KafkaProducer<byte[], byte[]>> producers;
        private volatile String idBase;
        private volatile String nonce = UUID.randomUUID().toString();
        /** This writer's marker group, as its transactions name it: set with the producers. */
        private volatile ConsumerGroupMetadata group;
        private volatile boolean closed;
        /** The slot of the open transaction of the records since the last checkpoint; -1: none yet. */
        private int current = -1;
        private List<Rec> interval = new ArrayList<>();
        private long lastCheckpoint;
        /** Closed at the end of its input: the state the engine takes after it says so. */
        private boolean ended;
        private boolean claimed;
        private boolean started;

        Writer(KafkaExactlyOnceSink<T> sink, int instance, int parallelism) {
            this.sink = sink;
            this.instance = instance;
            this.parallelism = parallelism;
            this.idBase = sink.transactionalIdPrefix() + "-" + FIRST_LAYOUT + "-" + instance;
        }

        @Override
        public void claim(OwnerToken owner) {
            claimed = true; // fencing is Kafka's: a newer owner's initTransactions fences this writer's producers
        }

        @Override
        public void write(T item) {
            if (!claimed) {
                throw new IllegalStateException(sink.describe() + ": exactly-once output needs a job with checkpoints or replicas, whose "
                        + "restore commits what a failure left pre-committed, and this job has neither: give it checkpoints "
                        + "(JobConfig.checkpoints), or write with KafkaSinks.atLeastOnce");
            }
            throwIfFailed();
            if (!started) {
                start();
            }
            byte[] key = sink.keyFn == null ? null : sink.keyFn.apply(item);
            byte[] value = sink.valueFn.apply(item);
            if (current < 0) {
                int slot = freeSlot();
                producers.get(slot).beginTransaction();
                current = slot;
            }
            interval.add(new Rec(key, value));
            producers.get(current).send(new ProducerRecord<>(sink.topic, key, value), onSent);
        }

        /** A fresh start: fences the pool's ids (aborting what an earlier run left open) and writes this writer's marker. */
        private void start() {
            List<KafkaProducer<byte[], byte[]>> ps = fence(idBase, sink.poolSize);
            try {
                group = readMarker(idBase).group();
                KafkaProducer<byte[], byte[]> p = ps.get(0);
                p.beginTransaction();
                p.sendOffsetsToTransaction(marker(0), group);
                p.commitTransaction();
            } catch (RuntimeException e) {
                ps.forEach(p -> p.close(Duration.ZERO));
                throw new IllegalStateException(sink.describe() + " instance " + instance + ": cannot write its commit marker (group "
                        + idBase + "): " + e, e);
            }
            producers = ps;
            started = true;
        }

        /** The marker of checkpoint {@code checkpointId}: the offset of the marker partition in this writer's group. */
        private Map<TopicPartition, OffsetAndMetadata> marker(long checkpointId) {
            return marker(checkpointId, false);
        }

        /** {@code ended}: written by {@link #close}, which commits before the checkpoints that cover it are complete. */
        private Map<TopicPartition, OffsetAndMetadata> marker(long checkpointId, boolean ended) {
            return Map.of(sink.markerPartition(), new OffsetAndMetadata(checkpointId, MARKER + nonce + (ended ? ENDED : "")));
        }

        private String transactionalId(String base, int slot) {
            return base + "-" + slot;
        }

        /** A producer per id {@code base-0 .. base-(n-1)}, each initialised: every earlier producer of the id is fenced, its transaction aborted. */
        private List<KafkaProducer<byte[], byte[]>> fence(String base, int n) {
            List<KafkaProducer<byte[], byte[]>> ps = new ArrayList<>(n);
            try {
                for (int s = 0; s < n; s++) {
                    ps.add(sink.newProducer(transactionalId(base, s)));
                }
                AtomicReference<RuntimeException> failed = new AtomicReference<>();
                List<Thread> inits = new ArrayList<>(n);
                for (KafkaProducer<byte[], byte[]> p : ps) { // each a round trip or two to its coordinator: all at once
                    inits.add(Thread.ofVirtual().name("init " + base).start(() -> {
                        try {
                            p.initTransactions();
                        } catch (RuntimeException e) {
                            failed.compareAndSet(null, e);
                        }
                    }));
                }
                for (Thread t : inits) {
                    t.join();
                }
                if (failed.get() != null) {
                    throw failed.get();
                }
                return ps;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ps.forEach(p -> p.close(Duration.ZERO));
                throw new IllegalStateException(sink.describe() + " instance " + instance + ": interrupted taking the transactional ids of "
                        + base, e);
            } catch (RuntimeException e) {
                ps.forEach(p -> p.close(Duration.ZERO));
                throw new IllegalStateException(sink.describe() + " instance " + instance + ": cannot take the transactional ids " + base
                        + "-0.." + (n - 1) + ": " + e, e);
            }
        }

        /** A slot whose transaction is neither open nor pre-committed; waits for a commit when there is none. */
        private int freeSlot() {
            long timeout = sink.transactionTimeout().toNanos();
            long deadline = System.nanoTime() + timeout;
            synchronized (lock) {
                while (true) {
                    throwIfFailed();
                    for (int s = 0; s < producers.size(); s++) {
                        if (!taken(s)) {
                            return s;
                        }
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new IllegalStateException(sink.describe() + " instance " + instance + ": every transaction of its pool of "
                                + producers.size() + " has waited for its checkpoint's commit for " + Duration.ofNanos(timeout)
                                + ": the checkpoints do not complete, or the commits fail");
                    }
                    try {
                        lock.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 100)));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(sink.describe() + " instance " + instance + ": interrupted waiting for a commit", e);
                    }
                }
            }
        }

        private boolean taken(int slot) {
            for (Pending p : pending.values()) {
                if (p.slot() == slot) {
                    return true;
                }
            }
            return false;
        }

        /** The pre-commit: every record since the last checkpoint is in the log, its transaction named in the state. */
        @Override
        public byte[] snapshot(long checkpointId) {
            throwIfFailed();
            int records = 0;
            if (current >= 0) {
                producers.get(current).flush();
                throwIfFailed();
                records = interval.size();
                synchronized (lock) {
                    pending.put(checkpointId, new Pending(current, interval));
                }
                current = -1;
                interval = new ArrayList<>();
            }
            lastCheckpoint = checkpointId;
            sink.probe.preCommitted(instance, checkpointId, records);
            synchronized (lock) {
                return encode(idBase, producers == null ? sink.poolSize : producers.size(), nonce, ended, pending);
            }
        }

        @Override
        public void commit(long checkpointId) {
            sink.probe.commitAsked(instance, checkpointId);
            commitLock.lock();
            try {
                while (!closed) {
                    Map.Entry<Long, Pending> next;
                    synchronized (lock) {
                        next = pending.firstEntry();
                    }
                    if (next == null || next.getKey() > checkpointId || !sink.probe.mayCommit(instance, next.getKey())) {
                        return;
                    }
                    commitOne(next.getKey(), next.getValue(), false);
                }
            } finally {
                commitLock.unlock();
            }
        }

        /** Commits the transaction of {@code checkpointId} with its marker; a failure breaks the writer (its restore writes them again). */
        private void commitOne(long checkpointId, Pending p, boolean ended) {
            KafkaProducer<byte[], byte[]> producer = producers.get(p.slot());
            try {
                producer.sendOffsetsToTransaction(marker(checkpointId, ended), group);
                producer.commitTransaction();
            } catch (RuntimeException e) {
                IllegalStateException failure = new IllegalStateException(sink.describe() + " instance " + instance
                        + ": cannot commit the transaction of checkpoint " + checkpointId + " (" + transactionalId(idBase, p.slot()) + "): " + e
                        + "; the job fails, and its restore writes those records again, once", e);
                broken.compareAndSet(null, failure);
                synchronized (lock) {
                    lock.notifyAll();
                }
                throw failure;
            }
            synchronized (lock) {
                pending.remove(checkpointId);
                lock.notifyAll();
            }
            sink.probe.committed(instance, checkpointId, p.records().size());
        }

        private void throwIfFailed() {
            RuntimeException b = broken.get();
            if (b != null) {
                throw new IllegalStateException(b.getMessage(), b);
            }
            Exception e = sendFailed.get();
            if (e != null) {
                throw new IllegalStateException(sink.describe() + " instance " + instance + ": the brokers refused a record: " + e, e);
            }
        }

        @Override
        public void restore(byte[] state) {
            Saved saved = sink.decode(state);
            idBase = saved.idBase();
            nonce = saved.nonce();
            List<KafkaProducer<byte[], byte[]>> ps = fence(idBase, Math.max(saved.poolSize(), sink.poolSize));
            try {
                Marker marker = readMarker(idBase);
                int rewritten = recover(saved, ps, marker);
                group = marker.group();
                producers = ps;
                started = true;
                sink.probe.restored(instance, rewritten);
            } catch (RuntimeException e) {
                ps.forEach(p -> p.close(Duration.ZERO));
                throw e;
            }
        }

        @Override
        public void restoreRescaled(long checkpointId, List<List<byte[]>> earlier) {
            int rewritten = 0;
            for (List<byte[]> chain : earlier) {
                if (chain.isEmpty()) {
                    continue;
                }
                Saved saved = sink.decode(chain.get(chain.size() - 1)); // whole states only: the newest holds every pending one
                List<KafkaProducer<byte[], byte[]>> ps = fence(saved.idBase(), saved.poolSize());
                try {
                    rewritten += recover(saved, ps, readMarker(saved.idBase()));
                } finally {
                    ps.forEach(p -> p.close(Duration.ofSeconds(5)));
                }
            }
            idBase = sink.transactionalIdPrefix() + "-c" + checkpointId + "n" + parallelism + "-" + instance;
            started = false;
            sink.probe.restored(instance, rewritten);
        }

        /**
         * After the ids of {@code saved} are fenced: writes again, in one transaction that moves the
         * marker on, the pending transactions the marker says were not committed; returns how many
         * records that was.
         */
        private int recover(Saved saved, List<KafkaProducer<byte[], byte[]>> ps, Marker marker) {
            long done = committedUpTo(saved, marker);
            SortedMap<Long, Pending> todo = saved.pending().tailMap(done, false);
            if (todo.isEmpty()) {
                if (!saved.pending().isEmpty()) {
                    LOG.info("{}: the transactions of {} pre-committed by checkpoints {} were committed (marker {})", sink.describe(),
                            saved.idBase(), saved.pending().keySet(), done);
                }
                return 0;
            }
            KafkaProducer<byte[], byte[]> p = ps.get(0);
            int n = 0;
            try {
                p.beginTransaction();
                for (Pending pd : todo.values()) {
                    for (Rec r : pd.records()) {
                        p.send(new ProducerRecord<>(sink.topic, r.key(), r.value()));
                        n++;
                    }
                }
                p.sendOffsetsToTransaction(Map.of(sink.markerPartition(), new OffsetAndMetadata(todo.lastKey(), MARKER + saved.nonce())),
                        marker.group());
                p.commitTransaction(); // throws if a send failed: nothing of it is committed then
            } catch (RuntimeException e) {
                throw new IllegalStateException(sink.describe() + ": cannot write again the transactions of " + saved.idBase()
                        + " pre-committed by checkpoints " + todo.keySet() + ": " + e, e);
            }
            LOG.info("{}: wrote again the {} records of {} pre-committed by checkpoints {}, not committed before the failure (marker {})",
                    sink.describe(), n, saved.idBase(), todo.keySet(), done);
            return n;
        }

        /** The newest checkpoint whose transaction the writer of {@code saved} committed, by its marker (0: none). */
        private long committedUpTo(Saved saved, Marker marker) {
            OffsetAndMetadata found = marker.found();
            String mine = MARKER + saved.nonce();
            if (found != null && found.metadata().equals(mine + ENDED) && !saved.ended()) {
                LOG.warn("{}: {} committed its output up to its end of input, after checkpoint {}, and the job failed before a checkpoint "
                        + "recorded that end: the records it wrote after the checkpoint resumed from are written again, and are there twice",
                        sink.describe(), saved.idBase(), found.offset());
            }
            if (found == null || saved.pending().isEmpty()) {
                return 0; // nothing committed (or the marker is gone), or nothing to decide: a writer that never wrote has no marker
            }
            if (!found.metadata().equals(mine) && !found.metadata().equals(mine + ENDED)) {
                // this writer wrote its own marker before its first transaction: another's now means another writes with these ids
                throw new IllegalStateException(sink.describe() + ": the commit marker in group " + saved.idBase() + " is another writer's ("
                        + found + "): another sink writes with the transactional id prefix of this one; give each its own "
                        + "(KafkaExactlyOnceSink.transactionalIdPrefix)");
            }
            return found.offset();
        }

        /** The marker of group {@code base}: read once the group's ids are fenced, so that none of their transactions is pending. */
        private Marker readMarker(String base) {
            TopicPartition tp = sink.markerPartition();
            try (KafkaConsumer<byte[], byte[]> c = sink.markerConsumer(base)) {
                OffsetAndMetadata found = c.committed(Set.of(tp), MARKER_TIMEOUT).get(tp);
                return new Marker(c.groupMetadata(), found);
            } catch (RuntimeException e) {
                throw new IllegalStateException(sink.describe() + ": cannot read the commit marker of group " + base + ": " + e, e);
            }
        }

        /** End of input: commits every pending transaction and the one of the records since the last checkpoint. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            ended = true;
            try {
                if (!started) {
                    return;
                }
                throwIfFailed();
                if (current >= 0) {
                    producers.get(current).flush();
                    throwIfFailed();
                }
                commitLock.lock();
                try {
                    // the engine closes a writer at its own end of input: these commits come before the checkpoints that
                    // cover them are known complete, and the last marker says so (see committedUpTo)
                    List<Map.Entry<Long, Pending>> due;
                    synchronized (lock) {
                        due = new ArrayList<>(pending.entrySet());
                    }
                    for (int i = 0; i < due.size(); i++) {
                        commitOne(due.get(i).getKey(), due.get(i).getValue(), current < 0 && i == due.size() - 1);
                    }
                    if (current >= 0) {
                        KafkaProducer<byte[], byte[]> p = producers.get(current);
                        p.sendOffsetsToTransaction(marker(lastCheckpoint, true), group);
                        p.commitTransaction();
                        current = -1;
                    }
                    closed = true;
                } finally {
                    commitLock.unlock();
                }
            } finally {
                closed = true;
                List<KafkaProducer<byte[], byte[]>> ps = producers;
                if (ps != null) {
                    ps.forEach(p -> p.close(Duration.ofSeconds(30)));
                }
            }
        }

        /**
         * The job failed: aborts the open transaction and the pre-committed ones (a restore writes
         * those again, by the state), so that they hold back no {@code read_committed} consumer.
         */
        @Override
        public void abort() {
            if (closed) {
                return;
            }
            closed = true;
            List<KafkaProducer<byte[], byte[]>> ps = producers;
            if (ps == null) {
                return;
            }
            if (!sink.probe.abortsOnFailure()) {
                ps.forEach(p -> p.close(Duration.ZERO)); // closed at once, a producer aborts nothing: its transactions stay open
                return;
            }
            boolean locked = false;
            try {
                locked = commitLock.tryLock(ABORT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                Set<Integer> open = new TreeSet<>();
                if (current >= 0) {
                    open.add(current);
                }
                synchronized (lock) {
                    pending.values().forEach(p -> open.add(p.slot()));
                }
                List<Thread> aborts = new ArrayList<>();
                for (int slot : open) {
                    KafkaProducer<byte[], byte[]> p = ps.get(slot);
                    aborts.add(Thread.ofVirtual().name("abort " + transactionalId(idBase, slot)).start(() -> {
                        try {
                            p.abortTransaction();
                        } catch (RuntimeException e) {
                            LOG.debug("{}: cannot abort a transaction of {} ({}); its restore or its timeout will", sink.describe(), idBase,
                                    e.toString());
                        }
                    }));
                }
                long deadline = System.nanoTime() + ABORT_WAIT.toNanos();
                for (Thread t : aborts) {
                    t.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                if (locked) {
                    commitLock.unlock();
                }
                ps.forEach(p -> p.close(Duration.ZERO));
            }
        }

        @Override
        public String toString() {
            return "KafkaExactlyOnceSink.Writer[" + sink.topic + ", " + idBase + "]";
        }
    }
}
