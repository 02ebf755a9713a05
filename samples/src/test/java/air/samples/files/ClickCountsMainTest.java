package air.samples.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The file job sample end to end, and its checker fed wrong output. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClickCountsMainTest {

    @Test
    void the_job_counts_every_good_click_and_dead_letters_every_bad_line(@TempDir Path dir) throws Exception {
        assertThat(ClickCountsMain.execute(dir.toString(), "--files", "3", "--lines", "3000", "--bad-every", "101", "--workers", "2"))
                .isZero();
        List<String> dead = ClickCountsMain.committedLines(dir.resolve("bad"));
        assertThat(dead).hasSize(3 * (3000 / 101));
        assertThat(dead).allMatch(l -> l.matches("clicks-00[0-2]\\.json:\\d+\\t.*"));
        try (var hidden = Files.list(dir.resolve("out"))) {
            assertThat(hidden.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".inprogress"));
        }
    }

    @Test
    void the_same_under_checkpoints(@TempDir Path dir) {
        assertThat(ClickCountsMain.execute(dir.toString(), "--files", "2", "--lines", "2000", "--bad-every", "50", "--workers", "2",
                "--checkpoints", dir.resolve("ck").toString())).isZero();
    }

    @Test
    void the_checker_finds_a_wrong_count_a_missing_window_and_a_dead_letter_twice(@TempDir Path dir) throws Exception {
        ClickCountsMain.Expected expected = new ClickCountsMain.Expected(Map.of("page-1,0", 3L, "page-2,10000", 1L),
                Set.of("a.json:4"), 8);
        Files.createDirectories(dir.resolve("out"));
        Files.createDirectories(dir.resolve("bad"));
        Files.writeString(dir.resolve("bad/part-0-g0-0"), "a.json:4\tmap\terr\traw\n");
        Files.writeString(dir.resolve("out/part-0-g0-0"), "page-1,0,3\npage-2,10000,1\n");
        assertThat(ClickCountsMain.check(dir, expected, 1)).as("right output").isZero();

        Files.writeString(dir.resolve("out/part-0-g0-0"), "page-1,0,2\npage-2,10000,1\n");
        assertThat(ClickCountsMain.check(dir, expected, 1)).as("a count off by one").isEqualTo(1);
        Files.writeString(dir.resolve("out/part-0-g0-0"), "page-1,0,3\n");
        assertThat(ClickCountsMain.check(dir, expected, 1)).as("a window missing").isEqualTo(1);
        Files.writeString(dir.resolve("out/part-0-g0-0"), "page-1,0,3\npage-2,10000,1\npage-1,0,3\n");
        assertThat(ClickCountsMain.check(dir, expected, 1)).as("a window twice").isEqualTo(1);

        Files.writeString(dir.resolve("out/part-0-g0-0"), "page-1,0,3\npage-2,10000,1\n");
        Files.writeString(dir.resolve("bad/part-1-g0-0"), "a.json:4\tmap\terr\traw\n");
        assertThat(ClickCountsMain.check(dir, expected, 1)).as("a dead letter twice").isEqualTo(1);
        Files.delete(dir.resolve("bad/part-1-g0-0"));
        Files.delete(dir.resolve("bad/part-0-g0-0"));
        assertThat(ClickCountsMain.check(dir, expected, 1)).as("a bad line not dead-lettered").isEqualTo(1);
    }
}
