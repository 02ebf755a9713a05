package air.runtime.impl.routing;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.api.WindowDefinition;
import org.junit.jupiter.api.Test;

class AirRoutingTest {

    @Test
    void successive_tumbling_windows_go_to_successive_owners() {
        WindowDefinition w = new WindowDefinition(10, 10);
        assertThat(AirRouting.ownerOfWindow(0, w, 3)).isEqualTo(0);
        assertThat(AirRouting.ownerOfWindow(10, w, 3)).isEqualTo(1);
        assertThat(AirRouting.ownerOfWindow(20, w, 3)).isEqualTo(2);
        assertThat(AirRouting.ownerOfWindow(30, w, 3)).isEqualTo(0);
        assertThat(AirRouting.ownerOfWindow(-10, w, 3)).isEqualTo(2);
        assertThat(AirRouting.ownersOfFrame(20, w, 3)).containsExactly(2);
    }

    @Test
    void a_sliding_frame_goes_to_the_owner_of_every_window_that_contains_it() {
        WindowDefinition w = new WindowDefinition(30, 10);
        // frame [20,30) is in the windows starting at 20, 10 and 0: owners 2, 1, 0 of 4
        assertThat(AirRouting.ownersOfFrame(20, w, 4)).containsExactly(2, 1, 0);
        // with 2 owners the three windows map to 0, 1, 0: each owner once
        assertThat(AirRouting.ownersOfFrame(20, w, 2)).containsExactlyInAnyOrder(0, 1);
        assertThat(AirRouting.ownersOfFrame(20, w, 1)).containsExactly(0);
    }
}
