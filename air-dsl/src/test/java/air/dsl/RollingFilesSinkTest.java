package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.Job;
import air.runtime.JobFailedException;
import air.runtime.api.CommittingSinkWriter;
import air.runtime.api.OwnerToken;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import air.runtime.sink.RollingFilesSink;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two-phase-commit file sink: rows become visible only once the checkpoint covering them is
 * complete, so that what is visible after a failure is never taken back, and the run resumed from
 * the checkpoint completes the output with every row once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RollingFilesSinkTest {

    private static final long N = 6_000;
    private static final long HOLD_AT = 1_000;

    @TempDir
    Path tmp;

    /** The rows of every visible part file, row to count; hidden files are not read. */
    private static Map<String, Integer> visibleRows(Path dir) {
        Map<String, Integer> rows = new HashMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(f -> f.getFileName().toString().startsWith("part-")).toList()) {
                for (String line : Files.readAllLines(p)) {
                    rows.merge(line, 1, Integer::sum);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    private static List<String> hiddenFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".inprogress")).toList();
        }
    }

    private static Map<String, Integer> everyRowOnce(long n) {
        Map<String, Integer> rows = new HashMap<>();
        for (long i = 0; i < n; i++) {
            rows.put(Long.toString(i), 1);
        }
        return rows;
    }

    @Test
    void withoutCheckpointsEveryFileIsVisibleOnceRolled() throws IOException {
        Path out = tmp.resolve("out");
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(N, i -> i)).writeTo(Sinks.files(out, String::valueOf).rollAtBytes(1_000));
        p.execute(config(2));
        assertThat(visibleRows(out)).isEqualTo(everyRowOnce(N));
        assertThat(hiddenFiles(out)).isEmpty();
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.count()).as("rolled at 1000 bytes").isGreaterThan(20);
        }
    }

    @Test
    void aRollbackNeverTakesBackAVisibleRow() throws IOException {
        Path out = tmp.resolve("out");
        CheckpointRecoveryTest.WatchedStore store = new CheckpointRecoveryTest.WatchedStore(tmp.resolve("checkpoints"));
        AtomicBoolean armed = new AtomicBoolean(true);
        assertThatThrownBy(() -> run(out, store, armed, new SimpleMeterRegistry())).isInstanceOf(JobFailedException.class)
                .hasMessageContaining("injected failure");
        Map<String, Integer> afterFailure = visibleRows(out);
        assertThat(afterFailure).as("committed before the failure").isNotEmpty();
        assertThat(afterFailure.values()).as("each visible row once").containsOnly(1);
        assertThat(hiddenFiles(out)).as("what the failed run wrote after its last checkpoint stays hidden").isNotEmpty();

        SimpleMeterRegistry second = new SimpleMeterRegistry();
        run(out, store, new AtomicBoolean(), second);
        assertThat(second.find("air.recoveries").counter().count()).as("resumed from a checkpoint").isEqualTo(1);
        Map<String, Integer> rows = visibleRows(out);
        assertThat(rows).as("every row once: none visible after the failure was written again").isEqualTo(everyRowOnce(N));
        assertThat(hiddenFiles(out)).isEmpty();
    }

    @Test
    void filesBecomeVisibleWhileTheJobRuns() throws Exception {
        Path out = tmp.resolve("out");
        CheckpointRecoveryTest.WatchedStore store = new CheckpointRecoveryTest.WatchedStore(tmp.resolve("checkpoints"));
        AtomicBoolean go = new AtomicBoolean();
        Pipeline p = Pipeline.create();
        p.readFrom(new TestPipelines.HeldSource(N, HOLD_AT, go::get)).writeTo(Sinks.files(out, String::valueOf));
        Job job = p.submit(config(2).checkpoints(store, 20));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (visibleRows(out).size() < 2 * HOLD_AT && System.nanoTime() < deadline) {
            LockSupport.parkNanos(5_000_000); // polled: committed once a checkpoint after the held rows completes
        }
        assertThat(visibleRows(out)).as("the rows before the hold, committed while the job is held").hasSize((int) (2 * HOLD_AT));
        go.set(true);
        job.join();
        assertThat(visibleRows(out)).isEqualTo(everyRowOnce(N));
    }

    /**
     * A sink instance whose input ended before another instance failed must not have made its last
     * rows (those after its last checkpoint) visible: the rerun resumes from that checkpoint and
     * writes them again. Its commit waits until the whole job has ended well.
     */
    @Test
    void anInstanceThatEndsEarlyCommitsItsLastRowsOnlyWhenTheWholeJobEnds() throws IOException {
        Path out = tmp.resolve("out");
        CheckpointRecoveryTest.WatchedStore store = new CheckpointRecoveryTest.WatchedStore(tmp.resolve("checkpoints"));
        AtomicBoolean armed = new AtomicBoolean(true);
        AtomicBoolean firstEnded = new AtomicBoolean();
        assertThatThrownBy(() -> runUneven(out, store, armed, firstEnded)).isInstanceOf(JobFailedException.class)
                .hasMessageContaining("injected failure after instance 0 ended");
        Map<String, Integer> afterFailure = visibleRows(out);
        assertThat(afterFailure.values()).as("each visible row once").containsOnly(1);
        assertThat(afterFailure.keySet()).as("instance 0's rows after its last checkpoint are not visible yet")
                .doesNotContain(Long.toString(UNEVEN_FIRST - 1));
        runUneven(out, store, new AtomicBoolean(), new AtomicBoolean());
        Map<String, Integer> want = new HashMap<>();
        for (long i = 0; i < UNEVEN_FIRST; i++) {
            want.put(Long.toString(i), 1);
        }
        for (long i = 0; i < UNEVEN_SECOND; i++) {
            want.put(Long.toString(1_000_000_000L + i), 1);
        }
        assertThat(visibleRows(out)).as("every row once after the rerun").isEqualTo(want);
        assertThat(hiddenFiles(out)).isEmpty();
    }

    private static final long UNEVEN_FIRST = 200;
    private static final long UNEVEN_SECOND = 300_000;

    /**
     * Instance 0 emits {@code UNEVEN_FIRST} rows once two checkpoints are written, then ends;
     * instance 1 emits {@code UNEVEN_SECOND}, holding after its first 1000 while {@code armed}
     * until instance 0's input has ended; {@code armed}: instance 1's map then throws once.
     */
    private static void runUneven(Path out, CheckpointRecoveryTest.WatchedStore store, AtomicBoolean armed, AtomicBoolean firstEnded) {
        Pipeline p = Pipeline.create();
        p.readFrom(new UnevenSource(() -> store.writes.get() >= 2, firstEnded, () -> armed.get() && !firstEnded.get()))
                .map(i -> {
                    if (i >= 1_000_000_000L && firstEnded.get() && armed.getAndSet(false)) {
                        throw new IllegalStateException("injected failure after instance 0 ended");
                    }
                    return i;
                })
                .writeTo(Sinks.files(out, String::valueOf));
        p.execute(config(2).checkpoints(store, 10).fullCheckpointEvery(1));
    }

    /** See {@link #runUneven}: instance 0 says when its input ended; instance 1 holds after 1000 rows while {@code holdSecond} says so. */
    private record UnevenSource(BooleanSupplier firstMayGo, AtomicBoolean firstEnded, BooleanSupplier holdSecond)
            implements SourceFactory<Long> {

        @Override
        public SourceReader<Long> createReader(int instance, int parallelism) {
            long base = instance == 0 ? 0 : 1_000_000_000L;
            return new TestPipelines.CountingReader(instance == 0 ? UNEVEN_FIRST : UNEVEN_SECOND) {
                @Override
                long until() {
                    if (instance == 0) {
                        return firstMayGo.getAsBoolean() ? count : position;
                    }
                    return position < 1_000 ? 1_000 : holdSecond.getAsBoolean() ? position : count;
                }

                @Override
                long valueAt(long p) {
                    return base + p;
                }

                @Override
                void exhausted() {
                    if (instance == 0) {
                        firstEnded.set(true);
                    }
                }
            };
        }

        @Override
        public String describe() {
            return "uneven generator";
        }
    }

    /**
     * One job for both runs (operator ids follow the call sites); {@code armed}: its sink throws
     * once, after three checkpoints and after writing a few rows since its last snapshot, so that
     * the failed run always leaves rows no checkpoint covers (hidden) behind it.
     */
    private static void run(Path out, CheckpointRecoveryTest.WatchedStore store, AtomicBoolean armed, SimpleMeterRegistry registry) {
        Pipeline p = Pipeline.create();
        p.readFrom(new TestPipelines.HeldSource(N, HOLD_AT, () -> store.writes.get() >= 3))
                .map(i -> i)
                .writeTo(new FailingOnce<>(Sinks.files(out, String::valueOf).rollAtBytes(2_000),
                        () -> armed.get() && store.writes.get() >= 3 && armed.getAndSet(false)));
        p.execute(config(2).checkpoints(store, 10).fullCheckpointEvery(1).meterRegistry(registry));
    }

    /** A two-phase-commit sink whose writers throw once {@code fail} says so, after writing at least 5 rows since their last snapshot. */
    private record FailingOnce<T>(RollingFilesSink<T> sink, BooleanSupplier fail) implements SinkFactory<T> {

        @Override
        @SuppressWarnings("unchecked") // a rolling files sink's writers commit in two phases
        public SinkWriter<T> open(int instance, int parallelism) {
            CommittingSinkWriter<T> w = (CommittingSinkWriter<T>) sink.open(instance, parallelism);
            return new CommittingSinkWriter<>() {
                private int sinceSnapshot;

                @Override public void write(T item) {
                    w.write(item);
                    if (++sinceSnapshot >= 5 && fail.getAsBoolean()) {
                        throw new IllegalStateException("injected failure");
                    }
                }
                @Override public byte[] snapshot(long checkpointId) {
                    sinceSnapshot = 0;
                    return w.snapshot(checkpointId);
                }
                @Override public void commit(long checkpointId) throws Exception {
                    w.commit(checkpointId);
                }
                @Override public void restore(byte[] state) {
                    w.restore(state);
                }
                @Override public void claim(OwnerToken owner) {
                    w.claim(owner);
                }
                @Override public void close() {
                    w.close();
                }
                @Override public void abort() {
                    w.abort();
                }
            };
        }

        @Override
        public String describe() {
            return sink.describe();
        }

        @Override
        public List<String> earlierOutput() throws IOException {
            return sink.earlierOutput();
        }

        @Override
        public void discardEarlierOutput() throws IOException {
            sink.discardEarlierOutput();
        }
    }
}
