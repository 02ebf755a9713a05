package air.launcher;

import air.channels.MeshAuth;
import air.channels.bootstrap.PeerEnvironment;
import air.channels.bootstrap.QuietMpjHome;
import air.channels.bootstrap.Rendezvous;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The daemon-less launcher: starts N peer JVMs of one main class on this machine, serves their
 * MPJ rendezvous on loopback, streams their output line by line with the rank as a prefix, and
 * ends them all: when every peer has exited, or when one fails (the others get a grace period to
 * notice and report it themselves, then are killed). Every process it starts is ended by
 * {@link #close}.
 *
 * <p>It also serves the event channel: every peer gets {@code AIR_EVENTS=127.0.0.1:port} and a
 * token of its own ({@code AIR_EVENTS_TOKEN}) that its connection must greet with, and what peers
 * report there ({@link PeerReporter}, {@link EventLine}) goes to the spec's {@code events} consumer.
 * The output is passed on and never read.
 */
public final class LocalCluster implements PeerGroup {

    /** What to start; {@code hosts} null: every peer on this machine, meeting on loopback. */
    public record Spec(int peers, String mainClass, List<String> args, List<String> jvmOptions, String classpath,
                       long failureGraceMs, Consumer<String> output, Map<String, String> environment,
                       Consumer<PeerEvent> events, PeerHosts hosts) {

        public Spec {
            if (peers < 1) {
                throw new IllegalArgumentException("peers must be >= 1, was " + peers);
            }
            Objects.requireNonNull(mainClass, "mainClass");
            args = List.copyOf(args);
            jvmOptions = List.copyOf(jvmOptions);
            Objects.requireNonNull(classpath, "classpath");
            Objects.requireNonNull(output, "output");
            environment = Map.copyOf(environment);
            Objects.requireNonNull(events, "events");
        }

        /** The current JVM's class path and this JVM's stdout; events are dropped. */
        public static Spec of(int peers, String mainClass, List<String> args) {
            return new Spec(peers, mainClass, args, List.of(), System.getProperty("java.class.path"), 10_000, System.out::println,
                    Map.of(), e -> { }, null);
        }

        public Spec withJvmOptions(List<String> options) {
            return new Spec(peers, mainClass, args, options, classpath, failureGraceMs, output, environment, events, hosts);
        }

        public Spec withOutput(Consumer<String> sink) {
            return new Spec(peers, mainClass, args, jvmOptions, classpath, failureGraceMs, sink, environment, events, hosts);
        }

        public Spec withFailureGraceMs(long ms) {
            return new Spec(peers, mainClass, args, jvmOptions, classpath, ms, output, environment, events, hosts);
        }

        /** Extra environment variables for every peer. */
        public Spec withEnvironment(Map<String, String> variables) {
            Map<String, String> all = new HashMap<>(environment);
            all.putAll(variables);
            return new Spec(peers, mainClass, args, jvmOptions, classpath, failureGraceMs, output, all, events, hosts);
        }

        /** Where the peers' events go (on the launcher's reader threads, in each peer's order). */
        public Spec withEvents(Consumer<PeerEvent> consumer) {
            return new Spec(peers, mainClass, args, jvmOptions, classpath, failureGraceMs, output, environment, consumer, hosts);
        }

        /**
         * Each peer on a host of its own ({@link PeerHosts}): the rendezvous and the event channel
         * listen on the hosts' launcher address, and a peer can be cut off the network
         * ({@link LocalCluster#cut}).
         */
        public Spec withHosts(PeerHosts where) {
            return new Spec(peers, mainClass, args, jvmOptions, classpath, failureGraceMs, output, environment, events, where);
        }
    }

    /** Starts a fresh local cluster of {@code spec} for each attempt a supervisor makes. */
    public static PeerStarter starter(Spec spec) {
        return (graceMs, environment, events) -> start(spec.withFailureGraceMs(graceMs).withEnvironment(environment).withEvents(events));
    }

    private final Spec spec;
    private final Rendezvous rendezvous;
    private final List<Process> processes = new ArrayList<>();
    private final List<Thread> pumps = new ArrayList<>();
    private final LinkedBlockingQueue<Integer> exits = new LinkedBlockingQueue<>();
    private final Path mpjHome;
    /** The shared secret of this run's peers ({@link MeshAuth}), unless the spec's environment names one. */
    private final String secret = MeshAuth.randomSecret();
    private final EventServer events;
    /** The ranks whose hosts are cut off the network now. */
    private final Set<Integer> cut = new HashSet<>();

    private LocalCluster(Spec spec, Rendezvous rendezvous, Path mpjHome, EventServer events) {
        this.spec = spec;
        this.rendezvous = rendezvous;
        this.mpjHome = mpjHome;
        this.events = events;
    }

    /**
     * Starts the peers; they find each other through a rendezvous on a free loopback port (on a
     * free port of the hosts' launcher address when the spec names {@link PeerHosts}).
     */
    public static LocalCluster start(Spec spec) throws IOException {
        InetAddress listen = spec.hosts() == null ? InetAddress.getLoopbackAddress() : spec.hosts().launcherAddress();
        Rendezvous rv = Rendezvous.listen(listen, 0, spec.peers());
        Path home = null;
        EventServer events;
        try {
            home = QuietMpjHome.create();
            events = new EventServer(listen, spec.peers(), spec.events(), spec.output());
        } catch (IOException | RuntimeException e) {
            rv.close();
            if (home != null) {
                QuietMpjHome.delete(home);
            }
            throw e;
        }
        LocalCluster cluster = new LocalCluster(spec, rv, home, events);
        rv.serveInBackground(120_000, e -> spec.output().accept("[launcher] " + e.getMessage()));
        try {
            for (int rank = 0; rank < spec.peers(); rank++) {
                cluster.launch(rank);
            }
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    private void launch(int rank) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(spec.jvmOptions());
        cmd.add("-cp");
        cmd.add(spec.classpath());
        cmd.add(spec.mainClass());
        cmd.addAll(spec.args());
        String meet = "127.0.0.1";
        if (spec.hosts() != null) {
            cmd = spec.hosts().command(rank, cmd);
            meet = spec.hosts().launcherAddress().getHostAddress();
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(PeerEnvironment.variables(rank, spec.peers(), meet, rendezvous.port()));
        pb.environment().put("MPJ_HOME", mpjHome.toString());
        pb.environment().put(PeerReporter.EVENTS, events.address());
        pb.environment().put(PeerReporter.EVENTS_TOKEN, events.token(rank)); // the event channel believes only this peer's token
        // a secret of this run's own: AIR's meshes (TCP, liveness) refuse connections that cannot prove it
        pb.environment().put(MeshAuth.SECRET, secret);
        // made for this run alone: a later run could not check checkpoint files signed under it
        if (!spec.environment().containsKey(MeshAuth.SECRET) && !spec.environment().containsKey(MeshAuth.SECRET_FILE)) {
            pb.environment().put(MeshAuth.SECRET_PER_RUN, "1");
        }
        if (spec.hosts() != null) {
            pb.environment().putAll(spec.hosts().environment());
        }
        pb.environment().putAll(spec.environment());
        Process p = pb.start();
        processes.add(p);
        p.onExit().thenRun(() -> exits.add(rank));
        Thread pump = Thread.ofPlatform().daemon().name("air-peer-" + rank + "-output").start(() -> pump(rank, p.getInputStream()));
        pumps.add(pump);
    }

    private void pump(int rank, InputStream in) {
        String prefix = "[peer " + rank + "] ";
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                spec.output().accept(prefix + line);
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    @Override
    public int peers() {
        return processes.size();
    }

    public Process process(int rank) {
        return processes.get(rank);
    }

    @Override
    public boolean isAlive(int rank) {
        return processes.get(rank).isAlive();
    }

    /** Waits up to {@code timeoutMs} for any peer to exit; true if one did. */
    @Override
    public boolean anyExitWithin(long timeoutMs) throws InterruptedException {
        CompletableFuture<?>[] exited = processes.stream().map(Process::onExit)
                .toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.anyOf(exited).get(timeoutMs, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true;
        }
    }

    /** Kills one peer as {@code kill -9} would (for failure tests). */
    @Override
    public void kill(int rank) {
        processes.get(rank).destroyForcibly();
    }

    @Override
    public void pause(int rank) {
        signal(rank, "STOP");
    }

    @Override
    public void resume(int rank) {
        signal(rank, "CONT");
    }

    /** Cuts peer {@code rank}'s host off the network until {@link #heal} (or {@link #close}); needs {@link PeerHosts}. */
    @Override
    public void cut(int rank) {
        synchronized (cut) {
            cut.add(rank);
        }
        hosts().cut(rank);
    }

    @Override
    public void heal(int rank) {
        hosts().heal(rank);
        synchronized (cut) {
            cut.remove(rank);
        }
    }

    private PeerHosts hosts() {
        if (spec.hosts() == null) {
            throw new UnsupportedOperationException("peers on this machine's loopback cannot be cut off the network: give the spec PeerHosts");
        }
        return spec.hosts();
    }

    /** Sends a signal with {@code kill(1)}: the JDK can only terminate a process, not stop or continue it. */
    private void signal(int rank, String name) {
        long pid = processes.get(rank).pid();
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).redirectErrorStream(true).start();
            String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + name + " " + pid + " (peer " + rank + ") failed: " + said);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + name + " for peer " + rank + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling peer " + rank, e);
        }
    }

    /**
     * Waits until all peers exited or {@code timeoutMs} passed; after the first failure (an exit
     * other than 0 or {@link ExitCodes#STOPPED}) the rest
     * get the spec's grace period, then are killed. Returns each peer's exit code (-1: killed here
     * on timeout or after the grace period). Every event the peers reported has been handed on
     * when it returns.
     */
    @Override
    public int[] await(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        long graceEnd = Long.MAX_VALUE;
        int[] codes = new int[processes.size()];
        Arrays.fill(codes, Integer.MIN_VALUE);
        int left = processes.size();
        while (left > 0) {
            long until = Math.min(deadline, graceEnd);
            Integer rank = exits.poll(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (rank == null) {
                boolean grace = graceEnd <= deadline;
                for (int i = 0; i < processes.size(); i++) {
                    if (codes[i] == Integer.MIN_VALUE) {
                        spec.output().accept("[launcher] stopping peer " + i + (grace ? " after a peer failed" : ": time limit reached"));
                        processes.get(i).destroyForcibly(); // all at once: tearing down a JVM takes the kernel a while
                    }
                }
                for (int i = 0; i < processes.size(); i++) {
                    if (codes[i] == Integer.MIN_VALUE) {
                        processes.get(i).waitFor();
                        codes[i] = -1;
                    }
                }
                break;
            }
            codes[rank] = processes.get(rank).waitFor();
            left--;
            // stopped at a savepoint (as asked): the others stop at the same one on their own, like a clean end
            if (codes[rank] != 0 && codes[rank] != ExitCodes.STOPPED && graceEnd == Long.MAX_VALUE) {
                graceEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(spec.failureGraceMs());
                spec.output().accept("[launcher] peer " + rank + " exited with status " + codes[rank]
                        + (left == 0 ? "" : spec.failureGraceMs() >= TimeUnit.HOURS.toMillis(1) ? "; the other peers go on (they may survive it)"
                        : "; the other peers have " + spec.failureGraceMs() + " ms to stop"));
            }
        }
        events.drain(10_000);
        for (Thread pump : pumps) {
            pump.join(2_000);
        }
        return codes;
    }

    /** Ends every peer still running and releases the rendezvous. */
    @Override
    public void close() {
        for (Process p : processes) {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
        for (Process p : processes) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        List<Integer> stillCut;
        synchronized (cut) {
            stillCut = List.copyOf(cut);
        }
        RuntimeException healing = null;
        for (int rank : stillCut) {
            try {
                heal(rank); // the hosts are whole again for whatever runs on them next
            } catch (RuntimeException e) {
                healing = healing == null ? e : healing;
            }
        }
        rendezvous.close();
        events.close();
        try {
            QuietMpjHome.delete(mpjHome);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (healing != null) {
            throw healing;
        }
    }

    /** Runs a whole local cluster to completion, printing its output; the first failing peer's status ({@link ExitCodes#ofPeer}). */
    public static int run(Spec spec, long timeoutMs) throws IOException, InterruptedException {
        try (LocalCluster c = start(spec)) {
            int[] codes = c.await(timeoutMs);
            for (int code : codes) {
                if (code != 0) {
                    return ExitCodes.ofPeer(code);
                }
            }
            return ExitCodes.OK;
        }
    }
}
