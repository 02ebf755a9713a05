package air.launcher;

import air.channels.bootstrap.PeerEnvironment;
import air.runtime.JobConfig;
import air.runtime.JobEvent;
import air.runtime.JobListener;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A peer's end of the event channel: when the launcher started this JVM it set
 * {@code AIR_EVENTS=host:port}, and the reporter sends it every {@link JobEvent} of the jobs it is
 * installed on ({@link #install}) and this peer's output marks ({@link #firstOutput},
 * {@link #restoredOutput}), one {@link EventLine} each, written and flushed before the call
 * returns (so nothing is lost when the JVM exits right after a job), after a greeting that proves
 * it is the peer the launcher started ({@code AIR_EVENTS_TOKEN}, {@link EventGreeting}). Without
 * {@code AIR_EVENTS} it does nothing. A channel that breaks is reported once and then given up; the job goes on.
 */
public final class PeerReporter implements JobListener {

    /** The environment variable naming the launcher's event socket, {@code host:port}. */
    public static final String EVENTS = "AIR_EVENTS";
    /** The environment variable holding this peer's token for the event channel ({@link EventGreeting}). */
    public static final String EVENTS_TOKEN = "AIR_EVENTS_TOKEN";

    private static final Logger LOG = LoggerFactory.getLogger(PeerReporter.class);
    private static final Object INSTANCE_LOCK = new Object();
    private static PeerReporter instance;

    private final InetSocketAddress target;
    private final int rank;
    private final String token;
    private final ReentrantLock lock = new ReentrantLock();
    private Socket socket;
    private OutputStream out;
    private boolean broken;

    PeerReporter(InetSocketAddress target, int rank, String token) {
        this.target = target;
        this.rank = rank;
        this.token = token;
    }

    /** This JVM's reporter (one per JVM, however many jobs it runs): inactive unless {@code AIR_EVENTS} is set. */
    public static PeerReporter fromEnvironment() {
        synchronized (INSTANCE_LOCK) {
            if (instance == null) {
                instance = of(System.getenv(EVENTS), System.getenv(PeerEnvironment.RANK), System.getenv(EVENTS_TOKEN));
            }
            return instance;
        }
    }

    /**
     * A reporter to {@code events} ({@code host:port}, or null for an inactive one) for peer
     * {@code rank} (null: 0), greeting with {@code token} (the launcher refuses a wrong one).
     */
    static PeerReporter of(String events, String rank, String token) {
        if (events == null || events.isBlank()) {
            return new PeerReporter(null, 0, null);
        }
        int colon = events.lastIndexOf(':');
        try {
            return new PeerReporter(InetSocketAddress.createUnresolved(events.substring(0, colon), Integer.parseInt(events.substring(colon + 1))),
                    rank == null ? 0 : Integer.parseInt(rank.trim()), token);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(EVENTS + " must be host:port (and " + PeerEnvironment.RANK + " a number), got " + EVENTS + "="
                    + events + ", " + PeerEnvironment.RANK + "=" + rank, e);
        }
    }

    /** Whether there is a launcher to report to. */
    public boolean active() {
        return target != null;
    }

    /** {@code config} with this reporter as a listener when active, else {@code config} itself. */
    public JobConfig install(JobConfig config) {
        return active() ? config.listener(this) : config;
    }

    @Override
    public void onEvent(JobEvent event) {
        if (active()) {
            send(EventLine.encode(event));
        }
    }

    /** Reports that this peer process's first result row reached its sink. */
    public void firstOutput() {
        if (active()) {
            send(EventLine.encode(new PeerEvent.FirstOutput(rank, System.currentTimeMillis())));
        }
    }

    /** Reports that sink writer {@code instance}, restored from a checkpoint or a replica, wrote its first new row. */
    public void restoredOutput(int instance) {
        if (active()) {
            send(EventLine.encode(new PeerEvent.RestoredOutput(rank, System.currentTimeMillis(), instance)));
        }
    }

    /** {@link #restoredOutput} as a callback. */
    public IntConsumer restoredOutputs() {
        return this::restoredOutput;
    }

    private void send(String line) {
        lock.lock();
        try {
            if (broken) {
                return;
            }
            if (out == null) {
                socket = new Socket();
                socket.setTcpNoDelay(true);
                socket.connect(new InetSocketAddress(target.getHostString(), target.getPort()), 10_000);
                out = socket.getOutputStream();
                out.write((EventGreeting.line(rank, token) + "\n").getBytes(StandardCharsets.UTF_8));
            }
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            broken = true;
            LOG.warn("peer {}: cannot report events to the launcher at {}: {}; reporting stops, the job goes on", rank, target, e.toString());
            try {
                if (socket != null) {
                    socket.close();
                }
            } catch (IOException ignored) {
                // already broken
            }
        } finally {
            lock.unlock();
        }
    }

    /** Closes the channel (tests; a peer's JVM just exits, which closes it too). */
    void close() {
        lock.lock();
        try {
            broken = true;
            if (socket != null) {
                socket.close();
            }
        } catch (IOException e) {
            // closing anyway
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return active() ? "events to the launcher at " + target.getHostString() + ":" + target.getPort() : "no launcher to report to";
    }
}
