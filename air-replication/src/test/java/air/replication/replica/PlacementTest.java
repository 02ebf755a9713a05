package air.replication.replica;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PlacementTest {

    @Test
    void blocks_start_on_their_own_peers_and_move_together_with_a_new_version() {
        Placement p = new Placement(4);
        assertThat(p.blocksOn(2)).containsExactly(2);
        int before = p.version();
        p.move(new int[] {1}, 2);
        assertThat(p.version()).isNotEqualTo(before);
        assertThat(p.hostOf(1)).isEqualTo(2);
        assertThat(p.blocksOn(2)).containsExactly(1, 2);
        // peer 2 dies later: everything it hosts moves on, its own block and the one it took over
        p.move(p.blocksOn(2), 3);
        assertThat(p.blocksOn(3)).containsExactly(1, 2, 3);
        assertThat(p.blocksOn(2)).isEmpty();
        assertThat(p.hostOf(0)).isZero();
    }
}
