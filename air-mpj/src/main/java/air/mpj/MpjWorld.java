package air.mpj;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Objects;
import mpi.MPI;

/**
 * One call of {@code MPI.Init}: the arguments MPJ Express is started with (rank, conf and device,
 * then the program's own) and a description for logs and errors. Which arguments those are (the
 * daemon-less niodev world of the local launcher or {@code srun}, or what {@code mpjrun} passed)
 * is start-up logic and decided in {@code air.channels.bootstrap}; this class only makes the call,
 * since only this package may touch {@code mpi.*}.
 */
public final class MpjWorld {

    private final String[] initArgs;
    private final String description;
    private final boolean quietInit;
    private String[] userArgs = new String[0];

    private MpjWorld(String[] initArgs, String description, boolean quietInit) {
        this.initArgs = initArgs;
        this.description = description;
        this.quietInit = quietInit;
    }

    /**
     * {@code MPI.Init(initArgs)}, described as {@code description}; with {@code quietInit} MPJ's
     * standard error is muted during the call (it prints a stack trace when
     * {@code $MPJ_HOME/conf/mpjexpress.conf}, which it reads only for its log levels, is missing).
     */
    public static MpjWorld of(List<String> initArgs, String description, boolean quietInit) {
        Objects.requireNonNull(initArgs, "initArgs");
        Objects.requireNonNull(description, "description");
        if (initArgs.size() < 3) {
            throw new IllegalArgumentException("MPJ Express needs at least rank, conf and device to start, got " + initArgs);
        }
        return new MpjWorld(initArgs.toArray(String[]::new), description, quietInit);
    }

    String describe() {
        return description;
    }

    /** The program's own arguments, once {@link #init} has run. */
    public String[] userArgs() {
        return userArgs.clone();
    }

    /**
     * Calls {@code MPI.Init} on a platform thread (MPJ fails on virtual threads), muting its
     * standard error meanwhile when asked to.
     */
    void init() {
        Throwable[] failure = new Throwable[1];
        Thread t = Thread.ofPlatform().name("air-mpj-init").start(() -> {
            PrintStream err = System.err;
            boolean quiet = quietInit;
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
}
