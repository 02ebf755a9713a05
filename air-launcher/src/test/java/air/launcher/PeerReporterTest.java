package air.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.JobConfig;
import air.runtime.JobEvent;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The peer's end of the event channel against the launcher's: in order, nothing lost, never failing the job. */
class PeerReporterTest {

    @Test
    void without_a_launcher_it_does_nothing_and_installs_nothing() {
        PeerReporter r = PeerReporter.of(null, null, null);
        assertThat(r.active()).isFalse();
        JobConfig c = JobConfig.defaults();
        assertThat(r.install(c)).isSameAs(c);
        r.onEvent(new JobEvent.PartDone("j", 0, 1));
        r.firstOutput();
    }

    @Test
    void every_event_and_mark_reaches_the_launcher_in_order_before_drain_returns() throws Exception {
        List<PeerEvent> got = new ArrayList<>();
        List<String> complaints = new ArrayList<>();
        try (EventServer server = new EventServer(3, e -> {
            synchronized (got) {
                got.add(e);
            }
        }, complaints::add)) {
            PeerReporter reporter = PeerReporter.of(server.address(), "2", server.token(2));
            assertThat(reporter.install(JobConfig.defaults()).listeners()).containsExactly(reporter);
            List<PeerEvent> sent = new ArrayList<>();
            for (int i = 1; i <= 500; i++) {
                JobEvent e = new JobEvent.CheckpointWritten("j", 2, i, i, 1, 10);
                reporter.onEvent(e);
                sent.add(new PeerEvent.Job(e));
            }
            reporter.restoredOutput(7);
            reporter.firstOutput();
            reporter.close();
            server.drain(10_000);
            synchronized (got) {
                assertThat(got).hasSize(502);
                assertThat(got.subList(0, 500)).isEqualTo(sent);
                assertThat(got.get(500)).isInstanceOfSatisfying(PeerEvent.RestoredOutput.class, r -> {
                    assertThat(r.peer()).isEqualTo(2);
                    assertThat(r.instance()).isEqualTo(7);
                });
                assertThat(got.get(501)).isInstanceOfSatisfying(PeerEvent.FirstOutput.class, f -> assertThat(f.peer()).isEqualTo(2));
            }
            assertThat(complaints).isEmpty();
        }
    }

    @Test
    void a_launcher_that_is_gone_stops_the_reports_but_never_throws() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        PeerReporter reporter = PeerReporter.of("127.0.0.1:" + port, "0", "t");
        reporter.onEvent(new JobEvent.Started("j", 0, 1, 1, 1));
        reporter.onEvent(new JobEvent.Finished("j", 0, 2, 1));
        reporter.firstOutput();
    }
}
