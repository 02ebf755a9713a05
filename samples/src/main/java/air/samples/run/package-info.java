/**
 * {@code ./air run}: a user's own job jar, run by the launcher in each mode — embedded (the launcher
 * starts one JVM itself), as K local peer JVMs ({@link air.samples.run.RunPeers}), under
 * {@code srun} or through {@code mpjrun} (the launcher calls those tools). Why it is here: the
 * samples jar is the one the launcher builds, and it carries AIR with every transport.
 */
package air.samples.run;
