package air.samples.ysb;

import air.channels.bootstrap.PeerEnvironment;
import air.launcher.LocalCluster;
import air.runtime.Cluster;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * YSB-mem on several peer JVMs: {@link #launch} starts them on this machine (the local cluster);
 * {@link #runPeer} is one peer's part — run the query over the cluster, send its rows to the
 * gathering peer (rank 0 unless it was lost under replication), and there merge, write the
 * canonical output and report as the single-JVM run does.
 */
final class YsbPeers {

    private static final long DAY_MS = 24L * 3600 * 1000;

    private YsbPeers() {
    }

    /** Starts {@code args.peers()} JVMs of {@link YsbMain} with the same arguments and JVM flags; their worst exit code. */
    static int launch(YsbArgs args, String[] argv) {
        List<String> jvm = new ArrayList<>();
        for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!flag.startsWith("-agentlib") && !flag.startsWith("-javaagent")) {
                jvm.add(flag);
            }
        }
        boolean tcp = args.faults().replicating() || PeerEnvironment.wantsTcp(System.getenv());
        System.err.printf("ysb-mem: starting %d peer JVMs on this machine (%s, loopback)%n", args.peers(),
                tcp ? "AIR's TCP transport, which survives a peer's death" : "MPJ Express niodev");
        LocalCluster.Spec spec = LocalCluster.Spec.of(args.peers(), YsbMain.class.getName(), Arrays.asList(argv)).withJvmOptions(jvm);
        if (tcp) {
            spec = spec.withEnvironment(Map.of(PeerEnvironment.TRANSPORT, "tcp"));
        }
        try {
            if (args.faults().replicating()) {
                // with or without --kill: a peer lost to a kill from outside is survived, and the output check decides
                return YsbReplicaSupervisor.run(args, spec);
            }
            return args.faults().checkpointing() ? YsbSupervisor.run(args, spec) : LocalCluster.run(spec, DAY_MS);
        } catch (IOException e) {
            System.err.println("ysb: cannot start the peers: " + e.getMessage());
            return 3;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 3;
        }
    }

    /** This JVM's part of a cluster run; rank 0 reports. */
    static int runPeer(Cluster cluster, YsbArgs args) throws InterruptedException {
        YsbRun.Outcome local = YsbRun.run(args, cluster.self() == 0 && !args.quiet() ? System.err : null, cluster);
        if (local.stopped()) {
            return YsbMain.stopped(local, cluster.self()); // every peer stopped at the same savepoint: no rows to gather
        }
        long origin = args.offered() > 0 ? local.scheduleStartNanos() : local.firstNanos();
        byte[] rows = local.rows().encode(origin);
        ByteBuffer part = ByteBuffer.allocate(16 + rows.length).putLong(local.runNanos()).putLong(local.jobNanos()).put(rows);
        boolean reporter = cluster.gathers(); // rank 0, or the lowest live rank after replication outlived it
        List<byte[]> all = cluster.gather(part.array());
        if (!reporter) {
            System.err.printf("ysb-mem: peer %d done: %d rows, %.3f s%n", cluster.self(), local.rows().size(), local.runNanos() / 1e9);
            return 0;
        }
        List<YsbResultSink.Rows> parts = new ArrayList<>();
        long runNanos = 0;
        long jobNanos = 0;
        for (int peer = 0; peer < all.size(); peer++) {
            if (all.get(peer) == null) {
                continue; // lost under replication: its rows come from the peer that took its share over
            }
            ByteBuffer b = ByteBuffer.wrap(all.get(peer));
            runNanos = Math.max(runNanos, b.getLong());
            jobNanos = Math.max(jobNanos, b.getLong());
            parts.add(YsbRows.decode(Arrays.copyOfRange(all.get(peer), 16, all.get(peer).length), peer));
        }
        YsbRows gathered = YsbRows.merge(parts, args.query().shape());
        YsbRun.Outcome merged = new YsbRun.Outcome(args, gathered, local.firstNanos() - origin, runNanos, jobNanos, 0);
        return YsbMain.report(merged);
    }
}
