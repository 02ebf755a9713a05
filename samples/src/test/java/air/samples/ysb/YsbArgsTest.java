package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void bad_arguments_are_named() {
        assertThatThrownBy(() -> YsbArgs.parse()).hasMessageContaining("N (number of events) is required");
        assertThatThrownBy(() -> YsbArgs.parse("5X")).hasMessage("N must be a non-negative count like 5M, got '5X'");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "0")).hasMessage("P must be > 0, got 0");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--seed", "abc")).hasMessage("--seed must be a 64-bit integer, got 'abc'");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--rate")).hasMessage("--rate needs a value");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--fast")).hasMessage("unknown option --fast");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "1", "2")).hasMessage("unexpected argument '2'");
        assertThatThrownBy(() -> YsbArgs.parse("99999999999G")).hasMessageContaining("non-negative count");
        assertThatThrownBy(() -> YsbArgs.parse("5M", "--routing", "hash")).hasMessage("--routing must be AIR or KEY, got 'hash'");
        assertThat(YsbArgs.parse("5M", "--routing", "air").routing()).isEqualTo(Routing.AIR);
    }

    @Test
    void help_is_asked_for_anywhere_on_the_line() {
        assertThat(YsbMain.wantsHelp("5M", "--help")).isTrue();
        assertThat(YsbMain.wantsHelp("-h")).isTrue();
        assertThat(YsbMain.wantsHelp("5M", "2", "--query", "ysbm")).isFalse();
    }
}
