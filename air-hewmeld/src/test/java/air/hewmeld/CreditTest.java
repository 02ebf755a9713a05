package air.hewmeld;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CreditTest {

    @Test
    void shares_and_splits_sum_exactly_to_one() {
        Random random = new Random(3);
        for (int n = 1; n <= 9; n++) {
            long sum = 0;
            for (int s = 0; s < n; s++) {
                long share = Credit.shareOf(s, n);
                sum += share;
                long[] parts = Credit.split(share, 1 + random.nextInt(7));
                assertThat(Arrays.stream(parts).sum()).isEqualTo(share);
            }
            assertThat(sum).isEqualTo(Credit.ONE);
        }
        assertThat(Credit.split(5, 3)).containsExactly(2, 2, 1);
    }

    @Test
    void a_ledger_completes_at_exactly_one_and_names_the_sources_that_still_hold_credit() {
        CreditLedger ledger = new CreditLedger(3);
        assertThat(ledger.add(10, 0, Credit.shareOf(0, 3))).isFalse();
        long[] parts = Credit.split(Credit.shareOf(1, 3), 2);
        assertThat(ledger.add(10, 1, parts[0])).isFalse();
        assertThat(ledger.holders(10)).containsExactly(1, 2);
        assertThat(ledger.add(10, 1, parts[1])).isFalse();
        assertThat(ledger.oldestIncomplete()).isEqualTo(10);
        assertThat(ledger.release(2, 0, 100)).containsExactly(10L);
        assertThat(ledger.isComplete(10)).isTrue();
        assertThat(ledger.holders(10)).isEmpty();
        // a later epoch inside source 2's range already holds its share
        assertThat(ledger.creditOf(50)).isEqualTo(Credit.shareOf(2, 3));
        assertThat(ledger.holders(50)).containsExactly(0, 1);
    }

    @Test
    void protocol_violations_are_errors_not_rounding() {
        CreditLedger ledger = new CreditLedger(2);
        ledger.add(0, 0, Credit.shareOf(0, 2));
        assertThatThrownBy(() -> ledger.add(0, 0, 1)).hasMessageContaining("more than its share");
        ledger.add(0, 1, Credit.shareOf(1, 2));
        assertThatThrownBy(() -> ledger.add(0, 1, 1)).hasMessageContaining("already complete");
        ledger.release(0, 10, 20);
        assertThatThrownBy(() -> ledger.release(0, 15, 30)).hasMessageContaining("already released [10, 20)");
        assertThatThrownBy(() -> ledger.add(12, 0, 5)).hasMessageContaining("already released as part of a range");
    }

    @Test
    void a_source_releases_data_epochs_as_points_and_gaps_as_one_range() {
        SourceProgress p = new SourceProgress(10, 5);
        assertThat(p.onRecord(3)).isEqualTo(0);
        assertThat(p.advance()).containsExactly(new SourceProgress.Release.Range(Long.MIN_VALUE, -10));
        p.onRecord(12);
        assertThat(p.advance()).containsExactly(new SourceProgress.Release.Range(-10, 0));
        p.onRecord(15);
        assertThat(p.advance()).containsExactly(new SourceProgress.Release.Point(0));
        assertThat(p.onRecord(8)).as("late").isEqualTo(Long.MIN_VALUE);
        assertThat(p.lateRecords()).isEqualTo(1);
        p.onRecord(95);
        assertThat(p.advance()).containsExactly(new SourceProgress.Release.Point(10), new SourceProgress.Release.Range(20, 90));
        assertThat(p.finish()).isEqualTo(List.of(new SourceProgress.Release.Point(90),
                new SourceProgress.Release.Range(100, Long.MAX_VALUE)));
    }
}
