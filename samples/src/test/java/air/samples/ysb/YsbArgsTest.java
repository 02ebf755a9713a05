package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class YsbArgsTest {

    @Test
    void parses_the_spec_command_line() {
        YsbArgs a = YsbArgs.parse("100M", "2", "--seed", "-7", "--rate", "50K", "--out", "x.csv");
        assertThat(a.n()).isEqualTo(100_000_000L);
        assertThat(a.parallelism()).isEqualTo(2);
        assertThat(a.seed()).isEqualTo(-7);
        assertThat(a.rate()).isEqualTo(50_000);
        assertThat(a.offered()).isZero();
        assertThat(a.out()).isEqualTo(Path.of("x.csv"));
    }

    @Test
    void defaults_to_all_processors_and_latency_mode_sets_the_rate() {
        YsbArgs a = YsbArgs.parse("1G", "--offered", "200000");
        assertThat(a.n()).isEqualTo(1_000_000_000L);
        assertThat(a.parallelism()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(a.rate()).isEqualTo(200_000);
        assertThat(a.offered()).isEqualTo(200_000);
    }

    @Test
    void bad_arguments_are_usage_errors_naming_the_option() {
        assertThatThrownBy(() -> YsbArgs.parse()).hasMessage("Missing required parameter: 'N'");
        assertThatThrownBy(() -> YsbArgs.parse("5X"))
                .hasMessage("Invalid value for positional parameter at index 0 (N): must be a non-negative count like 5M, got '5X'");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "0"))
                .hasMessage("Invalid value for positional parameter at index 1 (P): must be in [1, 4096], got 0");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--seed", "abc"))
                .hasMessage("Invalid value for option '--seed': must be a 64-bit integer, got 'abc'");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--rate")).hasMessage("Missing required parameter for option '--rate' (R)");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--fast")).hasMessage("Unknown option: '--fast'");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "1", "2")).hasMessage("Unmatched argument at index 2: '2'");
        assertThatThrownBy(() -> YsbArgs.parse("99999999999G")).hasMessageContaining("non-negative count");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--routing", "hash"))
                .hasMessage("Invalid value for option '--routing': must be AIR or KEY, got 'hash'");
        assertThat(YsbArgs.parse("5M", "--routing", "air").routing()).isEqualTo(Routing.AIR);
    }

    @Test
    void a_savepoint_needs_its_moment_and_its_directory_and_stops_on_purpose_alone() {
        YsbArgs a = YsbArgs.parse("5M", "--savepoint", "ck", "--stop-after", "2s");
        assertThat(a.faults().checkpoints()).isEqualTo(Path.of("ck"));
        assertThat(a.faults().stopAfterMs()).isEqualTo(2_000);
        assertThat(a.faults().stopsWithSavepoint()).isTrue();
        assertThat(YsbArgs.parse("5M", "--savepoint", "ck", "--checkpoints", "ck", "--stop-after", "500ms").faults().stopAfterMs())
                .isEqualTo(500);
        assertThat(YsbArgs.parse("5M", "--checkpoints", "ck").faults().stopsWithSavepoint()).isFalse();
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--savepoint", "ck")).hasMessageContaining("--savepoint DIR needs --stop-after T");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--stop-after", "2s")).hasMessageContaining("--stop-after needs --savepoint DIR");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--savepoint", "a", "--checkpoints", "b", "--stop-after", "2s"))
                .hasMessageContaining("give --checkpoints the same directory");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--peers", "2", "--savepoint", "ck", "--stop-after", "2s", "--kill", "1"))
                .hasMessageContaining("does not combine with --kill or --replicas");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--savepoint", "ck", "--stop-after", "0s"))
                .hasMessageContaining("'--stop-after': must be a positive duration");
    }

    @Test
    void ranges_are_checked_where_the_option_is_parsed_not_when_the_job_runs() {
        // these once failed the job (a batch of -1294967296 records) or never ended (a strided index overflowing)
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--batch", "3G"))
                .hasMessage("Invalid value for option '--batch': must be in [1, 1048576], got 3G");
        assertThatThrownBy(() -> YsbArgs.parse("9223372036854775807", "2"))
                .hasMessage("Invalid value for positional parameter at index 0 (N): must be in [0, 1000000000000000], got 9223372036854775807");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--peers", "300")).hasMessageContaining("'--peers': must be in [1, 256]");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--replicas", "17")).hasMessageContaining("'--replicas': must be in [1, 16]");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--kill", "0")).hasMessageContaining("'--kill': must be in [1, 1000]");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--checkpoint-interval", "0s"))
                .hasMessageContaining("'--checkpoint-interval': must be a positive duration");
        assertThat(YsbArgs.parse("5M", "--batch", "1M").batch()).isEqualTo(1_000_000);
    }

    @Test
    void options_take_their_value_after_an_equals_sign_too() {
        YsbArgs a = YsbArgs.parse("5M", "2", "--seed=9", "--routing=AIR", "--progress=hewmeld", "--query=ysbm", "--batch=256");
        assertThat(a.seed()).isEqualTo(9);
        assertThat(a.routing()).isEqualTo(Routing.AIR);
        assertThat(a.progress()).isEqualTo(Progress.HEWMELD);
        assertThat(a.query()).isEqualTo(YsbArgs.Query.YSBM);
        assertThat(a.batch()).isEqualTo(256);
        assertThat(a.out()).isEqualTo(Path.of("out", "ysbm-5000000.csv"));
    }

    @Test
    void fault_tolerance_options_combine_as_before() {
        YsbArgs a = YsbArgs.parse("5M", "1", "--peers", "4", "--replicas", "1", "--kill", "3", "--kill-seed", "7");
        assertThat(a.faults().replicas()).isEqualTo(1);
        assertThat(a.faults().kills()).isEqualTo(3);
        assertThat(a.faults().killSeed()).isEqualTo(7);
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--peers", "2", "--replicas", "1", "--checkpoints", "/tmp/x"))
                .hasMessageContaining("choose one");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--kill", "2")).hasMessageContaining("--kill needs --checkpoints DIR or --replicas K");
    }

    @Test
    void help_lists_every_option() {
        String usage = YsbArgs.usage();
        for (String option : new String[] {"--seed", "--rate", "--offered", "--out", "--routing", "--progress", "--watermark-ms", "--batch",
                "--peers", "--checkpoints", "--checkpoint-interval", "--replicas", "--kill", "--kill-seed", "--query", "--quiet", "--help"}) {
            assertThat(usage).contains(option);
        }
        assertThat(usage).startsWith("Usage: ysb").contains("Exit codes: 0 ok, 1 output check failed, 2 usage, 3 job failed");
    }

    @Test
    void help_is_asked_for_anywhere_on_the_line() {
        assertThat(YsbMain.wantsHelp("5M", "--help")).isTrue();
        assertThat(YsbMain.wantsHelp("-h")).isTrue();
        assertThat(YsbMain.wantsHelp("5M", "2", "--query", "ysbm")).isFalse();
    }
}
