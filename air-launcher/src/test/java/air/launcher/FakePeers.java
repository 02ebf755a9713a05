package air.launcher;

import air.runtime.JobEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Peers in this JVM for the supervisors' tests: they report what a script says, at once and on
 * the supervisor's thread, so that every decision the supervisor makes follows from events alone.
 */
final class FakePeers implements PeerGroup {

    /** One attempt's behaviour. */
    interface Script {
        /** What the peers report when started. */
        void started(FakePeers peers);

        /** What they report when {@code victim} is killed. */
        default void killed(FakePeers peers, int victim) {
        }

        /** Whether they end on their own as soon as asked whether one exited (the job was short). */
        boolean finishesAtOnce(FakePeers peers);
    }

    final int peers;
    final int attempt;
    final Map<String, String> environment;
    private final Consumer<PeerEvent> events;
    private final Script script;
    final boolean[] alive;
    final Set<Integer> killed = new HashSet<>();
    /** Peers whose hosts were cut off the network; {@link #fencedCode} is what they exit with. */
    final Set<Integer> cut = new HashSet<>();
    final Set<Integer> healed = new HashSet<>();
    int fencedCode = ExitCodes.FENCED;
    private int[] codes;

    private FakePeers(int peers, int attempt, Map<String, String> environment, Consumer<PeerEvent> events, Script script) {
        this.peers = peers;
        this.attempt = attempt;
        this.environment = environment;
        this.events = events;
        this.script = script;
        this.alive = new boolean[peers];
        Arrays.fill(alive, true);
    }

    /** A starter whose attempt {@code a} (1-based) follows {@code scripts.get(min(a, size) - 1)}; every group it started. */
    static final class Starter implements PeerStarter {
        final int peers;
        final List<Script> scripts;
        final List<FakePeers> started = new ArrayList<>();

        Starter(int peers, List<Script> scripts) {
            this.peers = peers;
            this.scripts = scripts;
        }

        @Override
        public PeerGroup start(long failureGraceMs, Map<String, String> environment, Consumer<PeerEvent> events) {
            int a = started.size() + 1;
            FakePeers g = new FakePeers(peers, a, environment, events, scripts.get(Math.min(a, scripts.size()) - 1));
            started.add(g);
            g.script.started(g);
            return g;
        }
    }

    void report(JobEvent e) {
        events.accept(new PeerEvent.Job(e));
    }

    void report(PeerEvent e) {
        events.accept(e);
    }

    static long now() {
        return System.currentTimeMillis();
    }

    @Override
    public int peers() {
        return peers;
    }

    @Override
    public boolean isAlive(int rank) {
        return alive[rank];
    }

    @Override
    public void kill(int rank) {
        alive[rank] = false;
        killed.add(rank);
        script.killed(this, rank);
    }

    /** A cut-off peer is lost to the others (the script hears it as a kill) and, alone, stops with {@link #fencedCode}. */
    @Override
    public void cut(int rank) {
        alive[rank] = false;
        cut.add(rank);
        script.killed(this, rank);
    }

    @Override
    public void heal(int rank) {
        healed.add(rank);
    }

    @Override
    public boolean anyExitWithin(long timeoutMs) {
        if (!killed.isEmpty() || !cut.isEmpty()) {
            return true;
        }
        if (script.finishesAtOnce(this)) {
            if (codes == null) {
                codes = new int[peers];
            }
            Arrays.fill(alive, false);
            return true;
        }
        return false;
    }

    /** A killed peer exits 137 (SIGKILL), a cut-off one {@link #fencedCode}; with no kill every peer that is left ends well. */
    @Override
    public int[] await(long timeoutMs) {
        if (codes == null) {
            codes = new int[peers];
            for (int p = 0; p < peers; p++) {
                codes[p] = killed.contains(p) ? 137 : cut.contains(p) ? fencedCode : 0;
            }
        }
        Arrays.fill(alive, false);
        return codes;
    }

    /** Makes this attempt end with {@code code} on peer {@code rank}. */
    void exit(int rank, int code) {
        codes = new int[peers];
        codes[rank] = code;
    }

    @Override
    public void close() {
        Arrays.fill(alive, false);
    }
}
