package air.mpj;

import static org.assertj.core.api.Assertions.assertThat;

import air.channels.Transport;
import air.channels.bootstrap.MpjProvider;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** What the MPJ module promises without starting MPJ (MpjTransportIT starts it). */
class MpjExpressTest {

    @Test
    void the_bootstrap_finds_this_module_through_its_spi() {
        assertThat(ServiceLoader.load(MpjProvider.class)).singleElement().isInstanceOf(MpjExpress.class);
    }

    @Test
    void mpj_does_not_claim_to_survive_a_peers_death_so_replication_refuses_it() throws NoSuchMethodException {
        // one rank's death breaks every niodev link: MpjTransport keeps the Transport default (false)
        assertThat(MpjTransport.class.getMethod("survivesPeerLoss").getDeclaringClass()).isEqualTo(Transport.class);
    }
}
