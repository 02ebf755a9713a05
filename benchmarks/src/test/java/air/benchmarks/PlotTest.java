package air.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The charts of ./air bench --plot: what each reads from the scripts' lines, and a log with a wrong run gets none. */
class PlotTest {

    private static final List<String> LOG = List.of(
            "# ysb throughput",
            "RESULT engine=loop p=1 n=400 throughput_eps=100",
            "RESULT engine=air-jvm p=1 n=400 throughput_eps=60 routing=KEY progress=watermark-200ms peers=1",
            "RESULT engine=air-jvm p=1 n=400 throughput_eps=80 routing=KEY progress=watermark-200ms peers=1",
            "RESULT engine=air-jvm p=1 n=400 throughput_eps=70 routing=KEY progress=watermark-200ms peers=1",
            "LATENCY layout=1x2 routing=AIR progress=hewmeld watermark_ms=- engine=air-jvm p=2 offered=200000 rows=10 p50_ms=1.5 "
                    + "p99_ms=4.0 max_ms=5.0 min_ms=1.0",
            "[peer 0] [launcher] kill 1: takeover_ms=90 first_output_ms=250",
            "[launcher] kill 2: first_output_ms=4700 running_again_ms=-1",
            "CHECK lost=0 dup=0 kills=2");

    @Test
    void throughput_is_the_median_per_engine_and_layout() {
        assertThat(Plot.describe(Plot.throughput(LOG))).isEqualTo(String.format(
                "loop p=1 events/s=100.0%nair-jvm p=1 KEY/watermark-200ms events/s=70.0%n"));
    }

    @Test
    void latency_has_p50_p99_and_max_per_mode_and_recovery_each_kills_known_figures() {
        assertThat(Plot.describe(Plot.latency(LOG))).isEqualTo(String.format(
                "1x2 AIR hewmeld wm- @200000 p50=1.5%n1x2 AIR hewmeld wm- @200000 p99=4.0%n1x2 AIR hewmeld wm- @200000 max=5.0%n"));
        assertThat(Plot.describe(Plot.recovery(LOG))).isEqualTo(String.format(
                "kill 1 takeover=90.0%nkill 1 first_output=250.0%nkill 2 first_output=4700.0%n"));
    }

    @Test
    void each_chart_is_a_png(@TempDir Path dir) throws Exception {
        System.setProperty("java.awt.headless", "true");
        List<Path> files = Plot.write(LOG, dir.resolve("charts"));
        assertThat(files).extracting(p -> p.getFileName().toString()).containsExactly("throughput.png", "latency.png", "recovery.png");
        for (Path f : files) {
            byte[] head = Files.readAllBytes(f);
            assertThat(head).startsWith(0x89, 'P', 'N', 'G');
        }
        assertThat(Plot.write(List.of("# nothing measured"), dir.resolve("empty"))).isEmpty();
    }

    @Test
    void a_log_in_which_a_run_differed_gets_no_chart(@TempDir Path dir) {
        List<String> wrong = new ArrayList<>(LOG);
        wrong.add("DIFFERS air-jvm p=1 run 2: checksum abc is not the reference");
        assertThatThrownBy(() -> Plot.write(wrong, dir)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("DIFFERS");
        assertThat(dir.resolve("throughput.png")).doesNotExist();
    }
}
