package air.replication.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.impl.checkpoint.OperatorId;
import air.runtime.impl.checkpoint.PartSections;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A chain of checkpoints is checked as it grows and folded, part by part, only when read. */
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

    /** The reference: {@code chain}'s checkpoints folded pair by pair ({@link PartSections#append}), as a replica did on every one. */
    static Map<String, byte[]> foldedPairwise(List<Map<String, byte[]>> chain) {
        Map<String, byte[]> folded = chain.get(0);
        for (Map<String, byte[]> next : chain.subList(1, chain.size())) {
            Map<String, byte[]> before = folded;
            Map<String, byte[]> step = new HashMap<>();
            next.forEach((part, bytes) -> step.put(part, before.containsKey(part) ? PartSections.append(before.get(part), bytes) : bytes));
            folded = step;
        }
        return folded;
    }

    @Test
    void a_chain_is_folded_part_by_part_as_folding_every_checkpoint_onto_the_one_before_would() {
        List<Map<String, byte[]>> chain = List.of(Map.of("v0/0", whole(10), "v1/0", whole(20)),
                Map.of("v0/0", changes(1), "v1/0", changes(2)),
                Map.of("v0/0", changes(3), "v1/0", whole(99)),
                Map.of("v0/0", changes(4), "v1/0", changes(5)));

        assertThat(states(Folding.part(chain, "v0/0"))).isEqualTo("complete 10 1 3 4");
        assertThat(states(Folding.part(chain, "v1/0"))).as("a whole state replaces the changes before it").isEqualTo("complete 99 5");
        Map<String, byte[]> reference = foldedPairwise(chain);
        assertThat(Folding.parts(chain)).containsOnlyKeys("v0/0", "v1/0");
        Folding.parts(chain).forEach((part, bytes) -> assertThat(bytes).as(part).isEqualTo(reference.get(part)));
        assertThat(Folding.parts(chain).values()).allMatch(PartSections::complete);
        assertThat(Folding.part(chain.subList(0, 1), "v0/0")).as("a chain of one: the whole part itself").isSameAs(chain.get(0).get("v0/0"));
        assertThat(states(Folding.part(chain.subList(0, 2), "v0/0"))).as("a shorter chain: an older copy").isEqualTo("complete 10 1");
    }

    @Test
    void a_part_gone_from_a_checkpoint_is_dropped_and_a_new_complete_one_starts_there() {
        List<Map<String, byte[]>> chain = List.of(Map.of("v0/0", whole(10), "v1/0", whole(20)),
                Map.of("v0/0", changes(1), "v0/3", whole(30)),
                Map.of("v0/0", changes(2), "v0/3", changes(3), "v1/0", whole(40)));

        assertThat(Folding.parts(chain)).containsOnlyKeys("v0/0", "v0/3", "v1/0");
        assertThat(states(Folding.part(chain, "v0/3"))).isEqualTo("complete 30 3");
        assertThat(states(Folding.part(chain, "v1/0"))).as("v1/0 of checkpoint 1 was dropped at 2").isEqualTo("complete 40");
        assertThat(Folding.part(chain.subList(0, 2), "v1/0")).isNull();
        Map<String, byte[]> reference = foldedPairwise(chain);
        Folding.parts(chain).forEach((part, bytes) -> assertThat(bytes).as(part).isEqualTo(reference.get(part)));
    }

    @Test
    void a_new_part_of_changes_only_is_a_mismatch_and_bytes_that_are_no_part_are_refused_naming_the_part() {
        Map<String, byte[]> one = Map.of("v0/0", whole(10));
        assertThat(Folding.check(one, 2, Map.of("v0/0", changes(1), "v0/3", whole(3)))).isNull();
        assertThat(Folding.check(one, 2, Map.of("v0/0", changes(1), "v0/3", changes(3)))).contains("part v0/3 is new at checkpoint 2");
        assertThatThrownBy(() -> Folding.check(one, 2, Map.of("v0/0", new byte[] {0, 0, 0, 1, 7})))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("part v0/0 of checkpoint 2 cannot be folded onto checkpoint 1");
    }
}
