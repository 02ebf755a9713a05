package air.launcher;

import air.runtime.JobEvent;

/**
 * A peer process for the launcher's tests, with no engine in it: it reports job events through
 * {@link PeerReporter} as a checkpointed job would, and logs lines worded unlike the engine's.
 * Arguments: the attempt from which on it finishes at once ({@code AIR_ATTEMPT} below that: it
 * runs until killed, for at most a minute), how many checkpoints it reports per attempt, and
 * optionally {@code nostart}: an attempt that finishes at once reports no start (it ends before
 * the supervisor could kill it).
 */
public final class ScriptedPeer {

    private ScriptedPeer() {
    }

    public static void main(String[] args) throws InterruptedException {
        int finishFrom = Integer.parseInt(args[0]);
        int checkpoints = Integer.parseInt(args[1]);
        int rank = Integer.parseInt(System.getenv("AIR_RANK"));
        int attempt = Integer.parseInt(System.getenv(RestartSupervisor.ATTEMPT));
        PeerReporter r = PeerReporter.fromEnvironment();
        String job = "ysb-mem";
        if (attempt > 1) {
            r.onEvent(new JobEvent.Recovering(job, rank, System.currentTimeMillis(), 7));
        }
        System.out.println("scripted peer " + rank + " (attempt " + attempt + "): under way");
        boolean finishes = attempt >= finishFrom;
        if (!finishes || args.length < 3 || !args[2].equals("nostart")) {
            r.onEvent(new JobEvent.Started(job, rank, System.currentTimeMillis(), 3, 1));
        }
        if (attempt > 1) {
            r.onEvent(new JobEvent.RunningAgain(job, rank, System.currentTimeMillis(), rank, 7, 5));
        }
        for (int c = 1; c <= checkpoints; c++) {
            r.onEvent(new JobEvent.CheckpointWritten(job, rank, System.currentTimeMillis(), 7 + c, 3, 100));
        }
        r.firstOutput();
        if (!finishes) {
            Thread.sleep(60_000); // until the supervisor kills this attempt; bounded, should it not
            System.exit(1);
        }
        System.out.println("scripted peer " + rank + ": all done");
        r.onEvent(new JobEvent.PartDone(job, rank, System.currentTimeMillis()));
        r.onEvent(new JobEvent.Finished(job, rank, System.currentTimeMillis(), 1));
        System.exit(0);
    }
}
