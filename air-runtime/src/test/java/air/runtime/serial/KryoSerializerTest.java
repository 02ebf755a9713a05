package air.runtime.serial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.api.Codecs;
import air.wire.FrameException;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The default serializer: values of any type, written with their class, read back equal, on any thread. */
class KryoSerializerTest {

    enum Color { RED, GREEN, BLUE }

    record Shade(Color color, int level) { }

    record Composite(String name, Shade shade, List<Long> ids, Map<String, Set<Color>> tags) { }

    /** A plain class without a no-argument constructor, with a nullable field. */
    static final class Account {
        final String owner;
        final long cents;
        final Color color;

        Account(String owner, long cents, Color color) {
            this.owner = owner;
            this.cents = cents;
            this.color = color;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Account a && a.cents == cents && a.color == color && Objects.equals(a.owner, owner);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(cents);
        }
    }

    private static Object roundTrip(Object value) {
        WireOut out = new WireOut(16);
        Serializers.get().write(value, out);
        Serializers.get().write("after", out); // values follow each other in one payload
        WireIn in = new WireIn(out.buffer(), 1);
        Object back = Serializers.get().read(in);
        assertThat(Serializers.get().read(in)).isEqualTo("after");
        assertThat(in.remaining()).isZero();
        return back;
    }

    @Test
    void records_enums_and_composites_come_back_equal() {
        Composite c = new Composite("c", new Shade(Color.BLUE, 3), List.of(1L, 2L),
                new TreeMap<>(Map.of("warm", new LinkedHashSet<>(List.of(Color.RED, Color.GREEN)), "cold", Set.of(Color.BLUE))));
        assertThat(roundTrip(c)).isEqualTo(c);
        assertThat(roundTrip(Color.GREEN)).isSameAs(Color.GREEN);
        assertThat(roundTrip(new Shade(Color.RED, -1))).isEqualTo(new Shade(Color.RED, -1));
        assertThat(roundTrip(new Account("ann", 1234, Color.RED))).isEqualTo(new Account("ann", 1234, Color.RED));
    }

    @Test
    void nulls_come_back_null_alone_and_inside_values() {
        assertThat(roundTrip(null)).isNull();
        assertThat(roundTrip(new Shade(null, 0))).isEqualTo(new Shade(null, 0));
        assertThat(roundTrip(new Account(null, 5, null))).isEqualTo(new Account(null, 5, null));
        List<String> withNull = new ArrayList<>(Arrays.asList("a", null, "b"));
        assertThat(roundTrip(withNull)).isEqualTo(withNull);
    }

    @Test
    void nested_collections_keep_their_contents_and_kinds() {
        Map<String, List<Map<Integer, Set<String>>>> nested = new HashMap<>();
        nested.put("x", List.of(Map.of(1, Set.of("a", "b")), new HashMap<>(Map.of(2, new LinkedHashSet<>(List.of("c"))))));
        nested.put("y", new ArrayList<>());
        Object back = roundTrip(nested);
        assertThat(back).isEqualTo(nested).isInstanceOf(HashMap.class);
        assertThat(roundTrip(List.of(1, 2, 3))).isEqualTo(List.of(1, 2, 3));
        assertThat(roundTrip(new int[] {1, 2})).isEqualTo(new int[] {1, 2});
    }

    @Test
    void every_thread_has_its_own_kryo() throws Exception {
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < 4; t++) {
            int seed = t;
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < 2_000; i++) {
                        Shade s = new Shade(Color.values()[(seed + i) % 3], i);
                        assertThat(roundTrip(s)).isEqualTo(s);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void codecs_fall_back_to_the_serializer_and_a_corrupt_value_names_the_problem() {
        assertThat(Codecs.orSerialized(null)).isSameAs(Serializers.get());
        assertThat(Codecs.orSerialized(Codecs.LONG)).isSameAs(Codecs.LONG);
        WireOut out = new WireOut(16);
        out.putBytes(new byte[] {1, 99, 99, 99});
        assertThatThrownBy(() -> Serializers.get().read(new WireIn(out.buffer(), 3))).isInstanceOf(FrameException.class)
                .hasMessageContaining("kryo");
    }
}
