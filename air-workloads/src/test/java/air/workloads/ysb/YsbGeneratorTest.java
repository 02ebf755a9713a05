package air.workloads.ysb;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The test vectors of YSB-SPEC sections 3 to 5. */
class YsbGeneratorTest {

    private final YsbGenerator generator = new YsbGenerator(42, 100_000);

    @Test
    void draw_matches_the_splitmix64_vectors() {
        assertThat(YsbEvent.hex(YsbGenerator.draw(0, 0))).isEqualTo("e220a8397b1dcdaf");
        assertThat(YsbEvent.hex(YsbGenerator.draw(42, 0))).isEqualTo("bdd732262feb6e95");
        assertThat(YsbEvent.hex(YsbGenerator.draw(42, 1))).isEqualTo("28efe333b266f103");
    }

    @Test
    void static_tables_match_the_spec_for_seed_42() {
        assertThat(YsbEvent.hex(YsbGenerator.mix64(42 ^ YsbGenerator.SALT_CAMPAIGN))).isEqualTo("8f145a8588bec217");
        assertThat(YsbEvent.hex(YsbGenerator.mix64(42 ^ YsbGenerator.SALT_AD))).isEqualTo("0ac7ccaf91151f8b");
        assertThat(YsbEvent.hex(generator.campaignId(0))).isEqualTo("fd03a85621bfcbef");
        assertThat(YsbEvent.hex(generator.campaignId(99))).isEqualTo("ac7b57a822d5753a");
        assertThat(YsbEvent.hex(generator.adId(0))).isEqualTo("4d0997c6bc31e48f");
        assertThat(YsbEvent.hex(generator.adId(999))).isEqualTo("2511568a504843ed");
        assertThat(generator.adToCampaign().size()).isEqualTo(1000);
        assertThat(generator.adToCampaign().get(generator.adId(999))).isEqualTo(generator.campaignId(99));
    }

    @Test
    void first_events_match_the_spec_table() {
        assertThat(generator.event(0).toJson()).isEqualTo("{\"user_id\":\"bdd732262feb6e95\",\"page_id\":\"28efe333b266f103\","
                + "\"ad_id\":\"3473ff97697367af\",\"ad_type\":\"mobile\",\"event_type\":\"click\",\"event_time\":1700000000000,"
                + "\"ip_address\":\"88.28.225.255\"}");
        YsbEvent e1 = generator.event(1);
        assertThat(YsbEvent.hex(e1.userId())).isEqualTo("09bc585a244823f2");
        assertThat(YsbEvent.hex(e1.adId())).isEqualTo("7aac5abe61cf58ef");
        assertThat(e1.ipText()).isEqualTo("204.246.53.238");
        YsbEvent e2 = generator.event(2);
        assertThat(e2.adTypeName()).isEqualTo("banner");
        assertThat(e2.eventTypeName()).isEqualTo("view");
        assertThat(e2.ipText()).isEqualTo("126.52.138.14");
        YsbEvent e3 = generator.event(3);
        assertThat(YsbEvent.hex(e3.pageId())).isEqualTo("851f977347ed6db7");
        assertThat(YsbEvent.hex(e3.adId())).isEqualTo("a2c185397ff51ffa");
        assertThat(e3.adTypeName()).isEqualTo("mail");
        assertThat(e3.eventTypeName()).isEqualTo("purchase");
        assertThat(e3.ipText()).isEqualTo("52.20.82.197");
        assertThat(generator.isView(2)).isTrue();
        assertThat(generator.isView(3)).isFalse();
    }

    @Test
    void event_time_advances_R_events_per_logical_second() {
        assertThat(generator.event(99_999).eventTime()).isEqualTo(YsbGenerator.T0 + 999);
        assertThat(generator.event(100_000).eventTime()).isEqualTo(YsbGenerator.T0 + 1000);
        assertThat(generator.windows(5_000_000)).isEqualTo(5);
        assertThat(generator.windows(5_000_001)).isEqualTo(6);
    }
}
