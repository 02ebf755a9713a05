package air.runtime.impl.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.wire.WireIn;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Parts of incremental checkpoints: folding a chain of parts keeps the whole state and every change after it, in order. */
class PartSectionsTest {

    private static final OperatorId HEAD = new OperatorId("v0", "source", false, List.of(), "source");
    private static final OperatorId WINDOW = new OperatorId("v0.1", "window", false, List.of(), "window");

    private static byte[] part(boolean whole, String head, String window) {
        PartSections p = new PartSections(2).add(HEAD, text(head));
        if (whole) {
            p.add(WINDOW, text(window));
        } else {
            p.addChanges(WINDOW, text(window));
        }
        ByteBuffer b = p.done().buffer();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return bytes;
    }

    private static WireOut text(String s) {
        return new WireOut(16).putString(s);
    }

    private static List<String> states(SavedState saved, String id) {
        return saved.states(id, 0).stream().map(WireIn::getString).toList();
    }

    @Test
    void a_chain_folds_to_the_whole_state_then_each_change_in_order() {
        Map<String, byte[]> c1 = Map.of("v0/0", part(true, "pos 10", "whole"));
        Map<String, byte[]> c2 = Map.of("v0/0", part(false, "pos 20", "change 2"));
        Map<String, byte[]> c3 = Map.of("v0/0", part(false, "pos 30", "change 3"));
        SavedState saved = SavedState.of(List.of(c1, c2, c3));
        assertThat(states(saved, "v0.1")).containsExactly("whole", "change 2", "change 3");
        assertThat(states(saved, "v0")).as("a whole section replaces the one before").containsExactly("pos 30");
    }

    @Test
    void a_whole_section_ends_the_chain_before_it() {
        byte[] folded = PartSections.append(PartSections.append(part(true, "a", "w1"), part(false, "b", "c2")), part(true, "c", "w3"));
        assertThat(PartSections.complete(folded)).isTrue();
        assertThat(PartSections.read(folded).get("v0.1").states()).hasSize(1);
        assertThat(states(SavedState.ofPart("v0/0", folded), "v0.1")).containsExactly("w3");
    }

    @Test
    void changes_without_the_whole_state_they_apply_to_are_refused_naming_the_operator() {
        byte[] changesOnly = part(false, "pos", "change");
        assertThat(PartSections.complete(changesOnly)).isFalse();
        SavedState saved = SavedState.of(Map.of("v0/0", changesOnly));
        assertThatThrownBy(() -> saved.states("v0.1", 0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("operator v0.1 instance 0").hasMessageContaining("only changes");
    }

    @Test
    void garbage_is_refused_as_malformed() {
        assertThatThrownBy(() -> PartSections.read(new byte[] {0, 0, 0, 1, 0, 0, 0, 1, 'x', 0, 0, 0, 0, 7, 0, 0, 0, 0}))
                .hasMessageContaining("kind");
    }

    @Test
    void a_section_written_in_place_reads_back_as_one_added_from_a_buffer_of_its_own_whatever_the_buffer_starts_at() {
        String big = "x".repeat(10_000); // far past the part's first buffer: it grows under the writer
        PartSections inPlace = new PartSections(2, 16)
                .add(HEAD, out -> {
                    out.putString("pos 10");
                    return false;
                })
                .add(WINDOW, out -> {
                    out.putString(big);
                    return true;
                });
        byte[] expected = bytes(new PartSections(2).add(HEAD, text("pos 10")).addChanges(WINDOW, text(big)).done());
        assertThat(bytes(inPlace.done())).isEqualTo(expected);
        assertThat(PartSections.read(expected).get("v0.1").complete()).isFalse();
    }

    private static byte[] bytes(WireOut out) {
        ByteBuffer b = out.buffer();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return bytes;
    }
}
