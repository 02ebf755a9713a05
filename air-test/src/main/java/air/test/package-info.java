/**
 * AIR's test kit, for an application's tests (add {@code dev.air:air-test} in test scope):
 * {@link air.test.TestEvents} (records with event times, in a replayable source),
 * {@link air.test.WindowResultsAssert} (AssertJ assertions on window results, per window),
 * {@link air.test.EveryLayout} (the same job on 1–3 workers under every routing and progress mode
 * must give the same output) and {@link air.test.InJvmPeers} (several peers in one JVM over the
 * in-JVM transport). AIR's own tests use it too.
 *
 * <p>Why a module of its own: it depends on AssertJ, which an application's main code should
 * not get from AIR.
 */
package air.test;
