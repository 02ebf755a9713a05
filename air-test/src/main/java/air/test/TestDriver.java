package air.test;

import air.dsl.Pipeline;
import air.runtime.Job;
import air.runtime.JobConfig;
import air.runtime.JobStatus;
import air.runtime.JobSummary;
import air.runtime.api.SinkFactory;
import air.runtime.api.SourceFactory;
import air.runtime.plan.HeadSpec;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.TailSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Runs a job in this JVM one step at a time, as Kafka Streams' test driver does a topology: the
 * test sends records with their event times into {@link TestDriverInput}s, moves event time and
 * processing time by hand, and after each step reads what reached the {@link TestDriverOutput}s —
 * with the same engine, progress protocols and layouts as production.
 *
 * <pre>{@code
 * try (TestDriver driver = TestDriver.create()) {
 *     TestDriverInput<Click> clicks = driver.input("clicks", 0);
 *     TestDriverOutput<WindowResult<String, Long>> counts = driver.output("counts");
 *     Pipeline p = Pipeline.create();
 *     clicks.readFrom(p).keyBy(Click::ad).window(Windows.tumbling(10_000)).aggregate(Aggregations.count()).writeTo(counts);
 *     driver.start(p, JobConfig.defaults().workers(2));
 *     clicks.send(1_000, new Click("a")).send(4_000, new Click("a"));
 *     driver.advanceEventTime(9_999);
 *     assertThat(counts.readAll()).isEmpty();                   // window [0, 10 s) still open
 *     driver.advanceEventTime(10_000);
 *     assertThatFirings(counts).windowFiredOnceBy(0, 10_000, 10_000);
 * }
 * }</pre>
 *
 * <p>Every step waits until its effect has passed the whole job: {@link #advanceEventTime} returns
 * once every source instance has handed the step on and the job is {@link Job#quiescent
 * quiescent} (so every window it completes has been written), {@link #advanceProcessingTime} first
 * settles what was sent, then waits until every source instance has looked at the new time and the
 * job settled again. A step that does not finish within the timeout (30 s unless
 * {@link #timeout set}) fails naming what is behind, with the job's progress report; a job that
 * failed makes the step throw its failure. The driver's outputs are not checkpointed sinks: a
 * config with checkpoints or replicas is refused (test fault tolerance with
 * {@link SimulatedPeers}). What stays timing-dependent: nothing
 * a test can observe through the driver — watermarks are published on every batch
 * ({@code watermarkIntervalMs(0)}) and idleness follows the manual {@link #clock()}.
 */
public final class TestDriver implements AutoCloseable {

    private final ManualClock clock;
    private final List<TestDriverInput<?>> inputs = new ArrayList<>();
    private final List<TestDriverOutput<?>> outputs = new ArrayList<>();
    private Duration timeout = Duration.ofSeconds(30);
    private Job job;
    private PhysicalPlan plan;
    private JobConfig config;
    private long eventTime = Long.MIN_VALUE;

    private TestDriver(ManualClock clock) {
        this.clock = clock;
    }

    /** A driver whose processing time starts at 0 ms. */
    public static TestDriver create() {
        return create(ManualClock.startingAt(0));
    }

    /** A driver whose job reads processing time from {@code clock}. */
    public static TestDriver create(ManualClock clock) {
        return new TestDriver(Objects.requireNonNull(clock, "TestDriver.create(clock): clock is null"));
    }

    /** How long one step may take before it fails the test (default 30 s). */
    public TestDriver timeout(Duration stepTimeout) {
        if (stepTimeout.isNegative() || stepTimeout.isZero()) {
            throw new IllegalArgumentException("TestDriver.timeout(stepTimeout): must be positive, was " + stepTimeout);
        }
        this.timeout = stepTimeout;
        return this;
    }

    /** A new input; records up to {@code allowedDisorderMs} behind the newest sent are on time. */
    public <T> TestDriverInput<T> input(String name, long allowedDisorderMs) {
        Objects.requireNonNull(name, "TestDriver.input(name, allowedDisorderMs): name is null");
        if (allowedDisorderMs < 0) {
            throw new IllegalArgumentException("TestDriver.input(name, allowedDisorderMs): allowedDisorderMs must be >= 0, was " + allowedDisorderMs);
        }
        checkNotStarted("input");
        TestDriverInput<T> in = new TestDriverInput<>(name, allowedDisorderMs);
        inputs.add(in);
        return in;
    }

    /** A new output to write a stage to. */
    public <T> TestDriverOutput<T> output(String name) {
        Objects.requireNonNull(name, "TestDriver.output(name): name is null");
        checkNotStarted("output");
        TestDriverOutput<T> out = new TestDriverOutput<>(name);
        outputs.add(out);
        return out;
    }

    /** The job's processing time. */
    public ManualClock clock() {
        return clock;
    }

    /**
     * Submits {@code pipeline} with {@code config}, its processing time on this driver's clock
     * and its watermarks published on every batch. Every input must be read by this pipeline and
     * every output written by it; checkpoints and replicas are refused (see the class doc).
     */
    public TestDriver start(Pipeline pipeline, JobConfig config) {
        Objects.requireNonNull(pipeline, "TestDriver.start(pipeline, config): pipeline is null");
        Objects.requireNonNull(config, "TestDriver.start(pipeline, config): config is null");
        checkNotStarted("start");
        if (config.checkpointStore() != null || config.replicas() > 0) {
            throw new IllegalArgumentException("TestDriver.start: " + config + " has checkpoints or replicas, but the driver's outputs "
                    + "are not checkpointed sinks; test a job's fault tolerance with SimulatedPeers");
        }
        if (inputs.isEmpty()) {
            throw new IllegalStateException("TestDriver.start: the driver has no input; make one with input(name, allowedDisorderMs)");
        }
        JobConfig driven = config.timeSource(clock).watermarkIntervalMs(0);
        plan = pipeline.plan(driven);
        this.config = driven;
        Set<SinkFactory<?>> sinks = Collections.newSetFromMap(new IdentityHashMap<>());
        plan.vertices().forEach(v -> sinksOf(v.tail(), sinks));
        for (TestDriverOutput<?> out : outputs) {
            if (!sinks.contains(out)) {
                throw new IllegalStateException("TestDriver.start: output '" + out.name() + "' is written by no stage of the pipeline");
            }
        }
        Set<SourceFactory<?>> sources = Collections.newSetFromMap(new IdentityHashMap<>());
        plan.vertices().forEach(v -> {
            if (v.head() instanceof HeadSpec.Source s) {
                sources.add(s.factory());
            }
        });
        for (TestDriverInput<?> in : inputs) {
            if (!sources.contains(in.source())) {
                throw new IllegalStateException("TestDriver.start: input '" + in.name() + "' is read by another pipeline or none; "
                        + "call readFrom on the pipeline you start");
            }
        }
        job = pipeline.submit(driven);
        return this;
    }

    private static void sinksOf(TailSpec tail, Set<SinkFactory<?>> sinks) {
        switch (tail) {
            case TailSpec.Sink s -> sinks.add(s.factory());
            case TailSpec.Fork f -> f.branches().forEach(b -> sinksOf(b.tail(), sinks));
            case TailSpec.Shuffle s -> { }
        }
    }

    /** The running job (its summary, progress report). */
    public Job job() {
        checkStarted("job");
        return job;
    }

    /**
     * Every input reaches event time {@code t}: records sent later with times below
     * {@code t - allowedDisorder} are late. Returns once the job has done all this step causes:
     * every window ending at or before {@code t} has fired and its results reached the outputs.
     */
    public TestDriver advanceEventTime(long t) {
        checkStarted("advanceEventTime");
        if (t < eventTime) {
            throw new IllegalArgumentException("TestDriver.advanceEventTime(" + t + "): event time never goes back, it is at " + eventTime);
        }
        eventTime = t;
        inputs.forEach(in -> in.advanceTo(t));
        return settle("event time " + t);
    }

    /**
     * Waits until the job has handled everything sent so far: every source instance has handed on
     * its input and the job is {@link Job#quiescent quiescent}. After {@link TestDriverInput#send}
     * alone, records that need no progress (a map, a filter) have then reached the outputs.
     */
    public TestDriver settle() {
        checkStarted("settle");
        return settle("the records sent");
    }

    private TestDriver settle(String what) {
        for (TestDriverInput<?> in : inputs) {
            await(what + " to be read from test input '" + in.name() + "'", in::awaitConsumed, () -> "its source instances have not read all of it");
        }
        await(what + " to pass through the job", this::awaitQuiescent, () -> "items still in flight between its tasklets");
        return this;
    }

    /** Polls {@link Job#quiescent} (there is nothing to wait on) within the slice; true once it holds. */
    private boolean awaitQuiescent(long nanos) {
        long end = System.nanoTime() + nanos;
        while (!job.quiescent()) {
            if (System.nanoTime() > end) {
                return false;
            }
            LockSupport.parkNanos(QUIESCENCE_POLL_NANOS);
        }
        return true;
    }

    /**
     * Moves processing time forward by {@code duration} once the job has handled what it was
     * sent, and returns once every source instance has looked at the new time and the job has
     * handled what that caused: a source quiet for the job's idle timeout counts as idle (its
     * event time estimated to advance with processing time, so windows may fire). A keyed process
     * function's processing-time timer due by then fires when its tasklet next looks at the clock
     * (its tasklet looks at the clock every few tens of milliseconds of machine time while such a
     * timer is pending): wait for its output with {@link TestDriverOutput#awaitWritten}.
     */
    public TestDriver advanceProcessingTime(Duration duration) {
        checkStarted("advanceProcessingTime");
        settle("the records sent");
        clock.advance(duration);
        // counted after the step: a poll counted later began after it, so its end of batch reads the new time
        List<long[]> polls = new ArrayList<>();
        inputs.forEach(in -> polls.add(in.polls()));
        for (int i = 0; i < inputs.size(); i++) {
            TestDriverInput<?> in = inputs.get(i);
            long[] before = polls.get(i);
            // two polls: the one after the step ends a batch, which publishes what idleness allows, before the next
            await("test input '" + in.name() + "' to see processing time move", nanos -> in.awaitPolls(before, 2, nanos),
                    () -> "its source instances did not poll again");
        }
        return settle("processing time " + clock.currentTimeMillis() + " ms");
    }

    /** Ends every input and waits for the job to finish: what is still open fires at the end of input. */
    public JobSummary finish() {
        checkStarted("finish");
        inputs.forEach(TestDriverInput::close);
        if (!joinWithin(timeout)) {
            throw new AssertionError("the job did not finish within " + timeout + " after its inputs ended:\n" + job.progressReport());
        }
        job.join(); // ended: throws the failure, if any, naming the operator
        return job.summary();
    }

    /** Joins the job on a thread of its own for at most {@code limit}; true when it ended. */
    private boolean joinWithin(Duration limit) {
        CompletableFuture<Void> joined = new CompletableFuture<>();
        Thread joiner = Thread.ofVirtual().name("air-test-driver-join").start(() -> {
            try {
                job.join();
                joined.complete(null);
            } catch (RuntimeException e) {
                joined.complete(null); // the caller's own join reports it
            }
        });
        try {
            joined.get(limit.toNanos(), TimeUnit.NANOSECONDS);
            joiner.join();
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw new AssertionError("joining the job failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while the job finished", e);
        }
    }

    /** Ends the inputs; cancels a job that does not then finish within the timeout. Every thread of the job has ended when it returns. */
    @Override
    public void close() {
        if (job == null) {
            return;
        }
        inputs.forEach(TestDriverInput::close);
        if (!joinWithin(timeout)) {
            job.cancel();
        }
        try {
            job.join();
        } catch (RuntimeException e) {
            // a failure was reported by the step that saw it; closing only releases the threads
        }
    }

    /** How often {@link #awaitQuiescent} looks. */
    private static final long QUIESCENCE_POLL_NANOS = 200_000;

    /** A wait that the job's end cannot interrupt: polls the job's status between slices. */
    private interface Wait {
        boolean await(long nanos) throws InterruptedException;
    }

    private void await(String what, Wait wait, Supplier<String> behind) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (!wait.await(TimeUnit.MILLISECONDS.toNanos(50))) {
                JobStatus s = job.status();
                if (s == JobStatus.FAILED || s == JobStatus.CANCELLED) {
                    job.join(); // throws the failure, naming the operator
                    throw new AssertionError("the job ended (" + s + ") while waiting for " + what);
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("waited " + timeout + " for " + what + ": " + behind.get() + "\n" + config + "\n"
                            + job.progressReport());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + what, e);
        }
    }

    private void checkNotStarted(String call) {
        if (job != null) {
            throw new IllegalStateException("TestDriver." + call + ": the driver's job has started; make inputs and outputs before start");
        }
    }

    private void checkStarted(String call) {
        if (job == null) {
            throw new IllegalStateException("TestDriver." + call + ": start(pipeline, config) first");
        }
    }
}
