package air.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A run's exit status is one of seven, whatever a peer's own status was. */
class ExitCodesTest {

    @Test
    void a_peers_own_status_passes_through_when_it_is_one_of_ours_and_anything_else_is_a_failed_job() {
        for (int s = 0; s <= 6; s++) {
            assertThat(ExitCodes.ofPeer(s)).isEqualTo(s);
        }
        assertThat(ExitCodes.ofPeer(137)).as("kill -9").isEqualTo(ExitCodes.JOB_FAILED);
        assertThat(ExitCodes.ofPeer(143)).as("SIGTERM").isEqualTo(ExitCodes.JOB_FAILED);
        assertThat(ExitCodes.ofPeer(-1)).as("did not end in time").isEqualTo(ExitCodes.JOB_FAILED);
        assertThat(ExitCodes.ofPeer(5)).as("fenced").isEqualTo(ExitCodes.FENCED);
        assertThat(ExitCodes.ofPeer(6)).as("stopped at a savepoint").isEqualTo(ExitCodes.STOPPED);
        assertThat(ExitCodes.ofPeer(7)).isEqualTo(ExitCodes.JOB_FAILED);
    }
}
