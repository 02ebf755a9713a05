package air.replication.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.impl.checkpoint.OperatorId;
import air.runtime.impl.checkpoint.PartSections;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A copy takes the next checkpoint's changes part by part, and stays a value that needs nothing before it. */
class FoldingTest {

    static final OperatorId OP = new OperatorId("count", "counter", false, List.of(), "count (T.java:1)");

    /** A part of one operator: its whole state {@code value}. */
    static byte[] whole(long value) {
        return bytes(new PartSections(1).add(OP, new WireOut(8).putLong(value)).done());
    }

    /** A part of one operator: what it changed, {@code delta}. */
    static byte[] changes(long delta) {
        return bytes(new PartSections(1).addChanges(OP, new WireOut(8).putLong(delta)).done());
    }

    static byte[] bytes(WireOut out) {
        ByteBuffer b = out.buffer();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return bytes;
    }

    /** The longs of a part's one section, oldest first, and whether it is complete. */
    static String states(byte[] part) {
        PartSections.Section s = PartSections.read(part).get(OP.id());
        StringBuilder out = new StringBuilder(s.complete() ? "complete" : "changes");
        for (byte[] state : s.states()) {
            out.append(' ').append(ByteBuffer.wrap(state).getLong());
        }
        return out.toString();
    }

    @Test
    void changes_are_added_to_the_whole_state_and_the_older_copy_is_left_as_it_was() {
        Map<String, byte[]> one = Map.of("v0/0", whole(10), "v1/0", whole(20));
        Map<String, byte[]> two = Folding.fold(one, 2, Map.of("v0/0", changes(1), "v1/0", changes(2)));
        Map<String, byte[]> three = Folding.fold(two, 3, Map.of("v0/0", changes(3), "v1/0", whole(99)));

        assertThat(states(three.get("v0/0"))).isEqualTo("complete 10 1 3");
        assertThat(states(three.get("v1/0"))).as("a whole state replaces the changes before it").isEqualTo("complete 99");
        assertThat(states(two.get("v0/0"))).isEqualTo("complete 10 1");
        assertThat(states(one.get("v0/0"))).isEqualTo("complete 10");
        assertThat(three.values()).allMatch(PartSections::complete);
    }

    @Test
    void a_part_gone_from_the_changes_is_dropped_and_a_new_complete_one_is_kept() {
        Map<String, byte[]> one = Map.of("v0/0", whole(10), "v1/0", whole(20));
        Map<String, byte[]> two = Folding.fold(one, 2, Map.of("v0/0", changes(1), "v0/3", whole(30)));

        assertThat(two).containsOnlyKeys("v0/0", "v0/3");
        assertThat(states(two.get("v0/3"))).isEqualTo("complete 30");
    }

    @Test
    void a_new_part_of_changes_only_or_bytes_that_are_no_part_are_refused_naming_the_part() {
        Map<String, byte[]> one = Map.of("v0/0", whole(10));
        assertThatThrownBy(() -> Folding.fold(one, 2, Map.of("v0/0", changes(1), "v0/3", changes(3))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("part v0/3 is new at checkpoint 2");
        assertThatThrownBy(() -> Folding.fold(one, 2, Map.of("v0/0", new byte[] {0, 0, 0, 1, 7})))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("part v0/0 of checkpoint 2 cannot be folded onto checkpoint 1");
    }
}
