package air.channels.mpj;

import java.io.File;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Objects;
import mpi.MPI;

/**
 * How this JVM joins an MPJ Express world: {@link #daemonless} (the project's own launcher, or
 * {@code srun}: rank and size are given, a {@link Rendezvous} server hands out the peers' ports) or
 * {@link #fromMpjrun} (started by {@code mpjrun} through MPJ daemons, which pass rank, conf and
 * device as the first arguments).
 */
public final class MpjWorld {

    private final String[] initArgs;
    private final String description;
    private String[] userArgs = new String[0];

    private MpjWorld(String[] initArgs, String description) {
        this.initArgs = initArgs;
        this.description = description;
    }

    /** Rank {@code rank} of {@code peers} on niodev; the rendezvous server listens at {@code host:port}. */
    public static MpjWorld daemonless(int rank, int peers, String host, int port) {
        if (peers < 1) {
            throw new IllegalArgumentException("peers must be >= 1, was " + peers);
        }
        if (rank < 0 || rank >= peers) {
            throw new IllegalArgumentException("rank must be in [0, " + peers + "), was " + rank);
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("rendezvous port must be in [1, 65535], was " + port);
        }
        Objects.requireNonNull(host, "host");
        String conf = "#Number of Processes;" + peers + ";#Protocol Switch Limit;131072;#Server Name;" + host + ";#Server Port;" + port;
        return new MpjWorld(new String[] {Integer.toString(rank), conf, "niodev"},
                "niodev, daemon-less, rank " + rank + " of " + peers + ", rendezvous " + host + ":" + port);
    }

    /** The arguments {@code mpjrun} gave {@code main}; {@link #userArgs()} has the rest after {@link #init}. */
    public static MpjWorld fromMpjrun(String[] mainArgs) {
        if (mainArgs.length < 3) {
            throw new IllegalArgumentException("expected the arguments mpjrun passes (rank, conf, device, ...), got "
                    + Arrays.toString(mainArgs) + ": start this class with mpjrun, or use the local launcher");
        }
        return new MpjWorld(mainArgs.clone(), "via mpjrun, device " + mainArgs[2]);
    }

    /** True when {@code mainArgs} look like what {@code mpjrun} passes: a rank, a conf and a device. */
    public static boolean looksLikeMpjrun(String[] mainArgs) {
        return mainArgs.length >= 3 && mainArgs[0].matches("\\d+") && (mainArgs[2].endsWith("dev") || mainArgs[2].equals("native"));
    }

    String describe() {
        return description;
    }

    /** The program's own arguments, once {@link #init} has run. */
    public String[] userArgs() {
        return userArgs.clone();
    }

    /**
     * Calls {@code MPI.Init} on a platform thread (MPJ fails on virtual threads). MPJ reads
     * {@code $MPJ_HOME/conf/mpjexpress.conf} only for its log levels and prints a stack trace
     * when it is missing: that trace is suppressed here.
     */
    void init() {
        Throwable[] failure = new Throwable[1];
        Thread t = Thread.ofPlatform().name("air-mpj-init").start(() -> {
            PrintStream err = System.err;
            boolean quiet = !confPresent();
            if (quiet) {
                System.setErr(new PrintStream(OutputStream.nullOutputStream()));
            }
            try {
                String[] rest = MPI.Init(initArgs);
                userArgs = rest == null ? new String[0] : rest;
            } catch (Throwable e) {
                failure[0] = e;
            } finally {
                if (quiet) {
                    System.setErr(err);
                }
            }
        });
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while joining the MPJ world", e);
        }
        if (failure[0] != null) {
            throw new IllegalStateException("MPJ Express could not start (" + description + "): " + failure[0], failure[0]);
        }
    }

    private static boolean confPresent() {
        String home = System.getenv("MPJ_HOME");
        return home != null && new File(home, "conf/mpjexpress.conf").isFile();
    }
}
