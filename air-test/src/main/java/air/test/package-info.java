/**
 * AIR's test kit, for an application's tests (add {@code dev.air:air-test} in test scope):
 * {@link air.test.TestEvents} (records with event times, in a replayable source),
 * {@link air.test.WindowResultsAssert} (AssertJ assertions on window results, per window),
 * {@link air.test.EveryLayout} (the same job on 1–3 workers under every routing and progress mode
 * must give the same output) and {@link air.test.InJvmPeers} (several peers in one JVM over the
 * in-JVM transport). AIR's own tests use it too.
 *
 * <p>{@link air.test.TestDriver} steps a job by hand, as Kafka Streams' test driver does: records
 * sent with their event times into {@link air.test.TestDriverInput}s, event time and processing
 * time ({@link air.test.ManualClock}) moved by the test, each step waiting until the job is
 * quiescent; {@link air.test.TestDriverOutput} remembers the progress every record fired at, and
 * {@link air.test.ProgressAssert} asserts on it ("window [0, 10 s) fired once, when event time
 * reached 10 s").
 *
 * <p>{@link air.test.SimulatedPeers} tests a job's fault tolerance: K simulated peers in one JVM
 * over the in-JVM transport, a seeded scheduler perturbing every frame, and a peer lost at a step
 * (its s-th data frame after its k-th snapshot); the survivors take its share over (replication)
 * or the whole world restarts from the newest complete checkpoint (checkpoints), and the output of
 * the kit's exactly-once sink must be the output without failures:
 * <pre>{@code
 * SimulatedPeers.of(3).seed(42).replication(1, 50).losePeer(1).afterSnapshots(2).atStep(10)
 *         .runAndCompare(peer -> {
 *             Pipeline p = Pipeline.create();
 *             // ... .writeTo(peer.sink());
 *             p.execute(peer.config(JobConfig.defaults().workers(2)));
 *         });
 * }</pre>
 * The fault point (in steps), the perturbations and the output are deterministic for a seed; the
 * JVM's thread scheduling, and so the interleaving of frames across links, is not.
 *
 * <p>{@link air.test.OperatorHarness} drives one {@link air.runtime.operator.Operator} alone, item
 * by item, with snapshots and fresh restored instances between any two calls, as Jet's
 * {@code TestSupport} does; {@link air.test.OperatorCheck} replays an {@link air.test.OperatorScript}
 * with a restore at every position, under both progress modes and onto other layouts, and asserts
 * the output never changes (docs/how-to-add-an-operator.md).
 *
 * <p>Why a module of its own: it depends on AssertJ, which an application's main code should
 * not get from AIR.
 */
package air.test;
