package air.runtime.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.OwnerToken;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A part file's fencing token: once a newer owner (a takeover under a later membership view)
 * claimed a part, the old owner — a peer that was paused and declared lost — can neither write,
 * commit nor restore it, and what the new owner wrote stays as it wrote it.
 */
class PartFilesFencingTest {

    private static final long WORLD = 1_700_000_000_000L;

    private static CheckpointedSinkWriter<String> writer(PartFilesSink<String> sink) {
        return (CheckpointedSinkWriter<String>) sink.open(3, 4);
    }

    @Test
    void a_fenced_owner_can_write_nothing_after_its_successor_claimed_the_part(@TempDir Path dir) throws Exception {
        PartFilesSink<String> sink = new PartFilesSink<>(dir, s -> s);
        CheckpointedSinkWriter<String> old = writer(sink);
        old.claim(new OwnerToken(WORLD, 0));
        old.write("a");
        old.write("b");
        byte[] committed = old.snapshot(1); // "a\nb\n" committed at checkpoint 1

        CheckpointedSinkWriter<String> successor = writer(sink); // the takeover host, from the copy of checkpoint 1
        successor.claim(new OwnerToken(WORLD, 1));
        successor.restore(committed);
        successor.write("c");
        successor.snapshot(2);

        old.write("stale");
        assertThatThrownBy(() -> old.snapshot(2)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("part-3 now belongs to owner (world " + WORLD + ", view 1)")
                .hasMessageContaining("this writer's owner (world " + WORLD + ", view 0)");
        assertThatThrownBy(() -> old.restore(committed)).hasMessageContaining("now belongs to");
        successor.close();
        assertThat(Files.readAllLines(sink.part(3))).containsExactly("a", "b", "c");
    }

    @Test
    void an_older_owner_of_the_same_world_cannot_claim_a_part_back(@TempDir Path dir) {
        PartFilesSink<String> sink = new PartFilesSink<>(dir, s -> s);
        writer(sink).claim(new OwnerToken(WORLD, 2));
        assertThatThrownBy(() -> writer(sink).claim(new OwnerToken(WORLD, 1))).hasMessageContaining("view 2");
    }

    @Test
    void a_new_world_claims_the_parts_of_an_earlier_one_and_a_fresh_start_removes_the_tokens(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("out");
        PartFilesSink<String> sink = new PartFilesSink<>(dir, s -> s);
        CheckpointedSinkWriter<String> first = writer(sink);
        first.claim(new OwnerToken(WORLD, 3));
        first.write("x");
        first.close();
        CheckpointedSinkWriter<String> restarted = writer(sink); // a restart: another world resumes the part
        restarted.claim(new OwnerToken(WORLD + 5_000, 0));
        restarted.write("y");
        restarted.close();
        assertThat(Files.readAllLines(sink.part(3))).containsExactly("y");
        assertThat(sink.earlierOutput()).as("the token is not output").hasSize(1);
        sink.discardEarlierOutput();
        try (var left = Files.list(dir); var tokens = Files.list(dir.resolve(".owners"))) {
            assertThat(left.map(p -> p.getFileName().toString()).toList()).containsExactly(".owners");
            assertThat(tokens.toList()).isEmpty();
        }
    }

    @Test
    void a_writer_never_claimed_writes_unfenced_as_before(@TempDir Path dir) throws Exception {
        PartFilesSink<String> sink = new PartFilesSink<>(dir, s -> s);
        CheckpointedSinkWriter<String> w = writer(sink);
        w.write("plain");
        w.close();
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).toList()).isEqualTo(List.of("part-3"));
        }
    }
}
