package air.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.JobEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventLineTest {

    private static final List<PeerEvent> ALL = List.of(
            new PeerEvent.Job(new JobEvent.Started("ysb-mem", 2, 1_733_070_000_123L, 7, 1)),
            new PeerEvent.Job(new JobEvent.CheckpointWritten("ysb-mem", 0, 5, 14, 3, 123_456_789_012L)),
            new PeerEvent.Job(new JobEvent.StateReplicated("ysb-mem", 2, 6, List.of(1, 2), 14, List.of(3))),
            new PeerEvent.Job(new JobEvent.StateReplicated("j", 3, 6, List.of(), 0, List.of())),
            new PeerEvent.Job(new JobEvent.Takeover("ysb-mem", 2, 7, 1, List.of(1), 13)),
            new PeerEvent.Job(new JobEvent.Recovering("ysb-mem", 1, 8, 9)),
            new PeerEvent.Job(new JobEvent.RunningAgain("ysb-mem", 2, 9, 1, 13, 812)),
            new PeerEvent.Job(new JobEvent.PartDone("ysb-mem", 3, 10)),
            new PeerEvent.Job(new JobEvent.Finished("ysb-mem", 0, 11, 4_000)),
            new PeerEvent.Job(new JobEvent.Failed("job 'x' = y", 1, 12, "peer 3 lost:\nno heartbeat for 3000 ms = 100%+ späť")),
            new PeerEvent.Job(new JobEvent.Cancelled("ysb-mem", 0, 13)),
            new PeerEvent.Job(new JobEvent.Stopped("ysb-mem", 1, 13, 7)),
            new PeerEvent.FirstOutput(3, 14),
            new PeerEvent.RestoredOutput(2, 15, 5));

    @Test
    void every_event_survives_a_round_trip_on_one_line_of_the_protocol() {
        for (PeerEvent e : ALL) {
            String line = EventLine.encode(e);
            assertThat(line).startsWith(EventLine.PREFIX).doesNotContain("\n").doesNotContain("\r");
            assertThat(EventLine.decode(line)).as(line).isEqualTo(e);
            assertThat(EventLine.decode(line + "\n")).isEqualTo(e);
        }
    }

    @Test
    void the_documented_example_decodes() {
        assertThat(EventLine.decode("air-event/1 state-replicated job=ysb-mem peer=2 at=1733070000123 blocks=1,2 checkpoint=14 replicas=3"))
                .isEqualTo(new PeerEvent.Job(new JobEvent.StateReplicated("ysb-mem", 2, 1_733_070_000_123L, List.of(1, 2), 14, List.of(3))));
    }

    @Test
    void fields_come_in_any_order_unknown_fields_are_ignored_and_unknown_kinds_decode_to_null() {
        assertThat(EventLine.decode("air-event/1 started workers=1 shiny=yes at=5 peer=0 tasklets=3 job=a"))
                .isEqualTo(new PeerEvent.Job(new JobEvent.Started("a", 0, 5, 3, 1)));
        assertThat(EventLine.decode("air-event/1 rebalanced job=a peer=0 at=5")).isNull();
    }

    @Test
    void a_line_that_is_not_of_the_protocol_or_lacks_a_field_is_refused_saying_why() {
        assertThatThrownBy(() -> EventLine.decode("[peer 0] job 'ysb-mem' starting")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not an event line");
        assertThatThrownBy(() -> EventLine.decode("air-event/1 started job=a peer=0 at=5 tasklets=3"))
                .hasMessageContaining("no field 'workers'");
        assertThatThrownBy(() -> EventLine.decode("air-event/1 recovering job=a peer=x at=5 checkpoint=1"))
                .hasMessageContaining("'peer' is not a number");
        assertThatThrownBy(() -> EventLine.decode("air-event/1 takeover job=a peer=1 at=5 dead=0 blocks=0,,1 checkpoint=1"))
                .hasMessageContaining("'blocks' is not a list of numbers");
        assertThatThrownBy(() -> EventLine.decode("air-event/1 part-done job=a peer=1 at=5 oops"))
                .hasMessageContaining("field without a name or '='");
    }
}
