package air.channels.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** The address a peer announces is never a wildcard, whatever AIR_BIND says. */
class AdvertiseTest {

    @Test
    void an_explicit_advertise_wins_and_a_specific_bind_is_its_own_address() {
        assertThat(Advertise.host("0.0.0.0", "10.1.2.3", "10.9.9.9")).isEqualTo("10.1.2.3");
        assertThat(Advertise.host("127.0.0.1", null, "10.9.9.9")).isEqualTo("127.0.0.1");
        assertThat(Advertise.host(null, null, null)).isEqualTo(InetAddress.getLoopbackAddress().getHostAddress());
    }

    @Test
    void a_wildcard_bind_announces_the_interface_that_routes_to_the_rendezvous_host() throws Exception {
        assertThat(Advertise.host("0.0.0.0", null, "127.0.0.1")).isEqualTo("127.0.0.1");
        String fallback = Advertise.host("0.0.0.0", null, null);
        assertThat(InetAddress.getByName(fallback).isAnyLocalAddress()).as(fallback).isFalse();
    }

    @Test
    void a_bind_that_does_not_resolve_is_named() {
        assertThatThrownBy(() -> Advertise.host("no-such-host.invalid", null, null)).hasMessageContaining("AIR_BIND=no-such-host.invalid");
    }
}
