package air.replication.replica;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UpstreamLogTest {

    private static List<ShuffleItem> replayed(UpstreamLog log, int destination) {
        List<ShuffleItem> out = new ArrayList<>();
        log.replay(destination, out::add);
        return out;
    }

    @Test
    void keeps_per_destination_order_and_drops_only_what_the_hosts_replicated() {
        UpstreamLog log = new UpstreamLog(2);
        ShuffleItem a = new ShuffleItem.Watermark(0, 10);
        ShuffleItem b1 = new ShuffleItem.Barrier(0, 1);
        ShuffleItem c = new ShuffleItem.Watermark(0, 20);
        ShuffleItem b2 = new ShuffleItem.Barrier(0, 2);
        ShuffleItem d = new ShuffleItem.Watermark(0, 30);
        log.add(0, a, 0);
        log.add(0, b1, 1);
        log.add(0, c, 1);
        log.add(1, c, 1);
        log.add(0, b2, 2);
        log.add(0, d, 2);
        // destination 0's host replicated snapshot 2: what came before barrier 2 is in it; destination 1's host nothing yet
        log.trim(dest -> dest == 0 ? 2 : 0);
        assertThat(replayed(log, 0)).containsExactly(b2, d);
        assertThat(replayed(log, 1)).containsExactly(c);
        log.trim(dest -> 2);
        assertThat(replayed(log, 1)).isEmpty();
        assertThat(log.size()).isEqualTo(2);
        log.clear(0);
        assertThat(log.size()).isZero();
    }

    @Test
    void counts_the_bytes_it_holds_and_whether_a_snapshot_under_way_can_trim_them() {
        UpstreamLog log = new UpstreamLog(2);
        ShuffleItem w = new ShuffleItem.Watermark(0, 10);
        int each = ShuffleItemCodec.sizeHint(w);
        log.add(0, w, 3);
        log.add(1, w, 4);
        log.add(1, w, 4);
        assertThat(log.bytes()).isEqualTo(3L * each);
        assertThat(log.holdsBefore(4)).as("an item tagged 3: snapshot 4 under way lets it go").isTrue();
        assertThat(log.holdsBefore(3)).as("nothing before barrier 3: only a new barrier could trim").isFalse();
        log.trim(dest -> 4);
        assertThat(log.bytes()).isEqualTo(2L * each);
        assertThat(log.holdsBefore(4)).isFalse();
        log.clear(1);
        assertThat(log.bytes()).isZero();
    }

    @Test
    void a_snapshot_taken_before_an_item_never_drops_it() {
        UpstreamLog log = new UpstreamLog(1);
        ShuffleItem late = new ShuffleItem.Watermark(0, 99);
        log.add(0, late, 5);
        log.trim(dest -> 5); // snapshot 5 was taken at barrier 5, before this item
        assertThat(replayed(log, 0)).containsExactly(late);
        log.trim(dest -> 6);
        assertThat(replayed(log, 0)).isEmpty();
    }
}
