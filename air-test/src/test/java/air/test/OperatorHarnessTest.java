package air.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.operator.Operator;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The harness itself: it passes a correct operator, and catches one that forgets state on restore or acts on hew-meld alone. */
class OperatorHarnessTest {

    /**
     * Sums the longs it gets per 10 ms epoch (the item is its own time) and emits each epoch's sum
     * at end - 1 once progress passes the epoch; {@code forgets}: its snapshot leaves the sum out.
     */
    static final class EpochSum implements Operator {
        private final HarnessOutput out;
        private final boolean forgets;
        private final boolean epochsOnly;
        private final TreeMap<Long, Long> sums = new TreeMap<>();

        EpochSum(HarnessOutput out, boolean forgets, boolean epochsOnly) {
            this.out = out;
            this.forgets = forgets;
            this.epochsOnly = epochsOnly;
        }

        @Override
        public void onItem(int input, Object item) {
            long t = (Long) item;
            sums.merge(t / 10 * 10, t, Long::sum);
        }

        @Override
        public void onEpochComplete(long epochStart) {
            if (epochsOnly) {
                Long sum = sums.remove(epochStart);
                if (sum != null) {
                    out.emit(epochStart + 9, sum);
                }
            }
        }

        @Override
        public void onProgress(long completeBelow) {
            while (!epochsOnly && !sums.isEmpty() && sums.firstKey() + 10 <= completeBelow) {
                var e = sums.pollFirstEntry();
                out.emit(e.getKey() + 9, e.getValue());
            }
        }

        @Override
        public void onEndOfInput() {
        }

        @Override
        public void snapshotTo(WireOut w, long checkpointId) {
            w.putInt(forgets ? 0 : sums.size());
            if (!forgets) {
                sums.forEach((k, v) -> w.putLong(k).putLong(v));
            }
        }

        @Override
        public void restoreFrom(WireIn in) {
            int n = in.getInt();
            for (int i = 0; i < n; i++) {
                sums.put(in.getLong(), in.getLong());
            }
        }
    }

    static OperatorScript script() {
        return OperatorScript.builder().item(1L).item(12L).progress(10).item(15L).item(21L).progress(30).item(33L).build();
    }

    @Test
    void a_correct_operator_gives_the_same_output_however_it_is_driven() {
        List<Emitted> out = OperatorCheck.of((o, i, n) -> new EpochSum(o, false, false), OperatorHarnessTest::script).hewMeld(10, 0).verify();
        assertThat(out).map(Emitted::toString).containsExactly("1@9", "27@19", "21@29", "33@39");
    }

    @Test
    void an_operator_that_forgets_its_state_on_restore_fails_the_check() {
        assertThatThrownBy(() -> OperatorCheck.of((o, i, n) -> new EpochSum(o, true, false), OperatorHarnessTest::script).verify())
                .isInstanceOf(AssertionError.class).hasMessageContaining("restored");
    }

    @Test
    void an_operator_that_fires_on_hew_meld_epochs_only_fails_the_check() {
        assertThatThrownBy(() -> OperatorCheck.of((o, i, n) -> new EpochSum(o, false, true), OperatorHarnessTest::script).hewMeld(10, 0)
                .verify()).isInstanceOf(AssertionError.class);
    }

    @Test
    void the_harness_drives_one_instance_by_hand() {
        OperatorHarness h = OperatorHarness.of((o, i, n) -> new EpochSum(o, false, false));
        h.item(0, 3L).progress(5).assertOutput().assertOutputProgress(5);
        h.snapshotAndRestore().progress(10).assertOutput("3@9");
        assertThat(h.takeOutput()).hasSize(1);
        h.item(14L).endOfInput().assertOutput("14@19");
    }
}
