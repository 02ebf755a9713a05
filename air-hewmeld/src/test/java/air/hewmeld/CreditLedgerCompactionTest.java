package air.hewmeld;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.wire.WireIn;
import air.wire.WireOut;
import org.junit.jupiter.api.Test;

/**
 * A ledger's memory stays flat over a million epochs once its owner compacts it below the
 * low-water mark, and compaction forgets nothing a protocol check needs: credit or a release below
 * the mark is still refused as duplicated.
 */
class CreditLedgerCompactionTest {

    private static final long LENGTH = 10;
    private static final int EPOCHS = 1_000_000;

    private static int snapshotBytes(CreditLedger ledger) {
        WireOut out = new WireOut(64);
        ledger.snapshotTo(out);
        return out.size();
    }

    /** Source 0 has data in every epoch (point credit); source 1 only in every third (the rest released as ranges). */
    private static void feed(CreditLedger ledger, long epoch) {
        ledger.add(epoch, 0, Credit.shareOf(0, 2));
        if (epoch / LENGTH % 3 == 0) {
            assertThat(ledger.add(epoch, 1, Credit.shareOf(1, 2))).isTrue();
        } else {
            assertThat(ledger.release(1, epoch, epoch + LENGTH)).containsExactly(epoch);
        }
    }

    @Test
    void a_million_epochs_leave_the_ledger_and_its_snapshot_as_small_as_the_first_few() {
        CreditLedger ledger = new CreditLedger(2);
        int firstSnapshot = -1;
        int largestRetained = 0;
        for (long i = 0; i < EPOCHS; i++) {
            long epoch = i * LENGTH;
            feed(ledger, epoch);
            ledger.compactBelow(epoch + LENGTH); // what HewMeldCompletion does as its progress moves
            largestRetained = Math.max(largestRetained, ledger.retained());
            if (i == 10) {
                firstSnapshot = snapshotBytes(ledger);
            }
        }
        assertThat(largestRetained).as("ids and ranges held at once").isLessThanOrEqualTo(2);
        assertThat(snapshotBytes(ledger)).isEqualTo(firstSnapshot);
        assertThat(ledger.isComplete(0)).isTrue();
        assertThat(ledger.creditOf(LENGTH * 5)).isEqualTo(Credit.ONE);
        assertThat(ledger.holders(LENGTH * 7)).isEmpty();
    }

    @Test
    void without_compaction_it_grows_with_every_epoch() {
        CreditLedger ledger = new CreditLedger(2);
        for (long i = 0; i < 10_000; i++) {
            feed(ledger, i * LENGTH);
        }
        assertThat(ledger.retained()).as("the control: the bound comes from compaction").isGreaterThan(10_000);
    }

    @Test
    void credit_and_releases_below_the_mark_are_still_refused_as_duplicated() {
        CreditLedger ledger = new CreditLedger(2);
        for (long i = 0; i < 100; i++) {
            feed(ledger, i * LENGTH);
        }
        ledger.compactBelow(100 * LENGTH);
        assertThat(ledger.retained()).isZero();
        assertThatThrownBy(() -> ledger.add(30, 0, 1)).hasMessageContaining("already complete: duplicated credit");
        assertThatThrownBy(() -> ledger.release(1, 500, 1_010)).hasMessageContaining("every epoch below 1000 is complete already");
        ledger.compactBelow(-5); // a lower mark changes nothing
        assertThat(ledger.isComplete(500)).isTrue();
    }

    @Test
    void the_mark_survives_a_snapshot_and_compaction_never_passes_an_incomplete_epoch() {
        CreditLedger ledger = new CreditLedger(2);
        feed(ledger, 0);
        ledger.compactBelow(LENGTH);
        ledger.add(LENGTH, 0, Credit.shareOf(0, 2)); // epoch 10 half credited
        WireOut out = new WireOut(64);
        ledger.snapshotTo(out);
        CreditLedger restored = new CreditLedger(2);
        restored.restoreFrom(new WireIn(out.buffer(), 0));
        assertThatThrownBy(() -> restored.add(0, 1, 1)).hasMessageContaining("duplicated credit");
        assertThat(restored.add(LENGTH, 1, Credit.shareOf(1, 2))).isTrue();
        assertThatThrownBy(() -> ledger.compactBelow(2 * LENGTH)).hasMessageContaining("epoch 10 is still incomplete");
    }
}
