package air.benchmarks;

import air.channels.Channels;
import air.channels.Frame;
import air.channels.InJvmTransports;
import air.channels.Transport;
import air.channels.bootstrap.MpjProvider;
import air.channels.bootstrap.PeerBootstrap;
import air.channels.bootstrap.PeerEnvironment;
import air.channels.bootstrap.WorldSpec;
import air.launcher.LocalCluster;
import air.mpj.MpjTransport;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Frame throughput between two peers for 1 KiB, 64 KiB and 1 MiB frames: in-JVM transport, then
 * MPJ Express niodev between two JVMs (started with the local launcher), in the same run.
 * {@code java -cp air-benchmarks.jar air.benchmarks.FrameThroughput [megabytes per size]}.
 * Prints one FRAMES line per (transport, size), raw MPJ messages (no framing) as the baseline, and
 * the ratios of the MPJ transport to in-JVM and to raw MPJ.
 */
public final class FrameThroughput {

    private static final int[] SIZES = {1 << 10, 64 << 10, 1 << 20};

    private FrameThroughput() {
    }

    public static void main(String[] args) throws Exception {
        if (PeerEnvironment.fromEnvironment() != null) {
            peer(Long.parseLong(args[0]));
            return;
        }
        long mb = args.length > 0 ? Long.parseLong(args[0]) : 2048;
        List<double[]> local = new ArrayList<>();
        for (int size : SIZES) {
            List<Transport> net = InJvmTransports.network(2);
            double[] r = measure(net.get(0), net.get(1), size, frames(mb, size), true);
            print("in-jvm", size, r);
            local.add(r);
        }
        List<String> out = new ArrayList<>();
        LocalCluster.Spec spec = LocalCluster.Spec.of(2, FrameThroughput.class.getName(), List.of(Long.toString(mb)))
                .withJvmOptions(peerJvmOptions()).withOutput(line -> {
                    synchronized (out) {
                        out.add(line);
                    }
                    System.out.println(line);
                });
        try (LocalCluster c = LocalCluster.start(spec)) {
            c.await(600_000);
        }
        for (int i = 0; i < SIZES.length; i++) {
            double ours = mbPerSecond(out, "mpj-niodev", SIZES[i]);
            double raw = mbPerSecond(out, "mpj-raw", SIZES[i]);
            System.out.printf(Locale.ROOT, "RATIO bytes=%d mpj_over_injvm=%.3f mpj_over_raw_mpj=%.3f%n", SIZES[i],
                    ours / local.get(i)[0], ours / raw);
        }
    }

    /** This JVM's flags for the peers too (so that -X and -XX options apply to both sides), with a 1 GiB heap by default. */
    private static List<String> peerJvmOptions() {
        List<String> flags = new ArrayList<>(ManagementFactory.getRuntimeMXBean().getInputArguments());
        if (flags.stream().noneMatch(f -> f.startsWith("-Xmx"))) {
            flags.add("-Xmx1g");
        }
        return flags;
    }

    private static double mbPerSecond(List<String> out, String transport, int size) {
        String tag = "FRAMES transport=" + transport + " bytes=" + size + " ";
        synchronized (out) {
            for (String line : out) {
                if (line.contains(tag)) {
                    return Double.parseDouble(line.replaceAll(".*MB_s=([0-9.]+).*", "$1"));
                }
            }
        }
        return Double.NaN;
    }

    private static long frames(long mb, int size) {
        return Math.max(200, mb * (1 << 20) / size);
    }

    private static void peer(long mb) throws Exception {
        MpjProvider.Joined world = PeerBootstrap.joinMpj(WorldSpec.of(new String[0], System.getenv()));
        MpjTransport t = (MpjTransport) world.transport(); // the frame benchmark measures the MPJ transport itself
        t.listen(Channels.data(0));
        t.listen(Channels.CONTROL);
        for (int size : SIZES) {
            double mbs = rawMpj(t.self(), size, frames(mb, size));
            if (t.self() == 1) {
                print("mpj-raw", size, new double[] {mbs, mbs * 1e6 / size});
            }
        }
        for (int size : SIZES) {
            double[] r = t.self() == 0 ? measure(t, null, size, frames(mb, size), false) : measure(null, t, size, frames(mb, size), false);
            if (t.self() == 1) {
                print("mpj-niodev", size, r);
            }
        }
        world.leave();
        System.exit(0);
    }

    /**
     * The baseline: plain MPJ messages of {@code size} bytes on a tag of their own, 8 in flight,
     * no framing, no checks, no copies of ours. Receiver's MB/s.
     */
    private static double rawMpj(int self, int size, long n) throws Exception {
        int tag = 30_000;
        byte[] buffer = new byte[size];
        mpi.MPI.COMM_WORLD.Barrier();
        if (self == 0) {
            ArrayDeque<mpi.Request> inFlight = new ArrayDeque<>();
            for (long i = 0; i < n; i++) {
                inFlight.add(mpi.MPI.COMM_WORLD.Isend(buffer, 0, size, mpi.MPI.BYTE, 1, tag));
                if (inFlight.size() > 8) {
                    inFlight.poll().Wait();
                }
            }
            while (!inFlight.isEmpty()) {
                inFlight.poll().Wait();
            }
            mpi.MPI.COMM_WORLD.Barrier();
            return 0;
        }
        long start = 0;
        for (long i = 0; i < n; i++) {
            mpi.MPI.COMM_WORLD.Recv(buffer, 0, size, mpi.MPI.BYTE, 0, tag);
            if (i == 0) {
                start = System.nanoTime();
            }
        }
        double secs = (System.nanoTime() - start) / 1e9;
        mpi.MPI.COMM_WORLD.Barrier();
        return (n - 1) * (double) size / secs / 1e6;
    }

    /** Sends {@code n} frames from {@code from} (rank 0) to {@code to} (rank 1); the receiver's view. */
    private static double[] measure(Transport from, Transport to, int size, long n, boolean sameJvm) throws Exception {
        Thread sender = null;
        if (from != null) {
            ByteBuffer payload = ByteBuffer.allocate(size);
            Runnable send = () -> {
                for (long i = 0; i < n; i++) {
                    from.send(1, Channels.data(0), payload.duplicate());
                }
            };
            if (!sameJvm) {
                send.run();
                Frame ack = from.receive(Channels.CONTROL, Duration.ofMinutes(5)); // the receiver says when it has all
                return new double[] {ack == null ? 0 : 1, 0};
            }
            sender = Thread.ofPlatform().start(send);
        }
        long start = 0;
        for (long i = 0; i < n; i++) {
            Frame f = to.receive(Channels.data(0), Duration.ofMinutes(5));
            if (f == null) {
                throw new IllegalStateException("frame " + i + " never arrived");
            }
            if (i == 0) {
                start = System.nanoTime();
            }
        }
        double secs = (System.nanoTime() - start) / 1e9;
        if (sender != null) {
            sender.join();
        }
        if (!sameJvm) {
            to.send(0, Channels.CONTROL, ByteBuffer.allocate(1));
        }
        double frames = (n - 1) / secs;
        return new double[] {frames * size / 1e6, frames};
    }

    private static void print(String transport, int size, double[] r) {
        System.out.printf(Locale.ROOT, "FRAMES transport=%s bytes=%d MB_s=%.1f frames_s=%.0f%n", transport, size, r[0], r[1]);
    }
}
