package air.runtime.impl.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RecoveryKeyTest {

    @Test
    void when_the_store_holds_checkpoints_of_this_job_under_another_key_then_they_are_named_and_others_are_not() {
        List<String> jobs = List.of("ysb-mem-0123456789ab", "ysb-mem-fedcba987654", "ysb-mem-users-0123456789ab", "other-0123456789ab");
        assertThat(Recovery.othersOf(jobs, "ysb-mem", "ysb-mem-fedcba987654")).containsExactly("ysb-mem-0123456789ab");
        assertThat(Recovery.othersOf(jobs, "ysb mem", "x")).isEmpty();
    }

    @Test
    void job_names_that_look_alike_on_disk_never_share_checkpoints() {
        assertThat(Recovery.namePrefix("orders eu")).isNotEqualTo(Recovery.namePrefix("orders_eu")).startsWith("orders_eu-");
        String theirs = Recovery.namePrefix("orders eu") + "0123456789ab";
        String mine = Recovery.namePrefix("orders_eu") + "fedcba987654";
        assertThat(Recovery.othersOf(List.of(theirs, mine), "orders_eu", mine)).isEmpty();
        assertThat(Recovery.othersOf(List.of(theirs, mine), "orders eu", "x")).containsExactly(theirs);
    }
}
