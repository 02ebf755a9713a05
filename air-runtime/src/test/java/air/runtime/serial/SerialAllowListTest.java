package air.runtime.serial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.wire.FrameException;
import air.wire.WireIn;
import air.wire.WireOut;
import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import java.io.File;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * What the default serializer refuses of bytes from elsewhere: a class not on the allow-list
 * (named in the error, before an object of it is made), and counts — of a collection, map, array
 * or string — larger than the bytes left (refused, not allocated: before the caps each of these
 * payloads asked for 8 to 16 GiB).
 */
class SerialAllowListTest {

    /** A payload as the serializer frames one value, written by a plain Kryo (no allow-list, no caps): what a stranger can send. */
    private static WireIn payload(Consumer<Output> write) {
        Kryo plain = new Kryo();
        plain.setRegistrationRequired(false);
        Output output = new Output(64, -1);
        write.accept(output);
        byte[] bytes = output.toBytes();
        WireOut out = new WireOut(bytes.length + 8);
        out.putBytes(bytes, 0, bytes.length);
        return new WireIn(out.buffer(), 1);
    }

    private static Kryo plain() {
        Kryo k = new Kryo();
        k.setRegistrationRequired(false);
        return k;
    }

    @Test
    void a_payload_naming_a_class_not_on_the_list_is_refused_naming_it() {
        Kryo k = plain();
        WireIn in = payload(out -> k.writeClassAndObject(out, new DefaultInstantiatorStrategy()));
        assertThatThrownBy(() -> Serializers.get().read(in)).isInstanceOf(FrameException.class)
                .hasMessageContaining("class " + DefaultInstantiatorStrategy.class.getName() + " is not on the serializer's allow-list")
                .hasMessageContaining("-Dair.serial.allow=" + DefaultInstantiatorStrategy.class.getName());
        WireIn nested = payload(out -> k.writeClassAndObject(out, new ArrayList<>(List.of("ok", new DefaultInstantiatorStrategy()))));
        assertThatThrownBy(() -> Serializers.get().read(nested)).as("inside a listed collection too")
                .hasMessageContaining("class " + DefaultInstantiatorStrategy.class.getName() + " is not on the serializer's allow-list");
    }

    @Test
    void a_value_of_a_class_not_on_the_list_fails_the_writer() {
        assertThatThrownBy(() -> Serializers.get().write(new AtomicLong(3), new WireOut(16))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("class " + AtomicLong.class.getName() + " is not on the serializer's allow-list");
        assertThatThrownBy(() -> Serializers.get().write(new File("/tmp"), new WireOut(16))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("class " + File.class.getName() + " is not on the serializer's allow-list");
    }

    @Test
    void listed_jdk_values_and_the_engines_types_go_through() {
        List<Object> values = List.of(new TreeSet<>(List.of(3, 1, 2)), Map.of("a", 1L), Optional.of("x"), Instant.ofEpochSecond(5),
                new HashMap<>(Map.of(1, List.of(2.0))), new long[] {1, 2}, new String[] {"s"}, "é ünïcode");
        for (Object v : values) {
            WireOut out = new WireOut(16);
            Serializers.get().write(v, out);
            assertThat(Serializers.get().read(new WireIn(out.buffer(), 1))).isEqualTo(v);
        }
    }

    @Test
    void a_package_added_to_the_list_is_allowed_with_its_subpackages() {
        assertThat(SerialAllowList.allows(File.class)).isFalse();
        assertThat(SerialAllowList.allows(AtomicLong[].class)).as("arrays follow their element class").isFalse();
        SerialAllowList.allow("org.example.listed.*");
        assertThat(SerialAllowList.allows(Kryo.class)).as("another package").isFalse();
        assertThat(SerialAllowList.allows(int[][].class)).isTrue();
    }

    @Test
    void counts_larger_than_the_bytes_left_are_refused_not_allocated() {
        Kryo k = plain();
        WireIn list = payload(out -> {
            k.writeClass(out, ArrayList.class);
            out.writeVarInt(Integer.MAX_VALUE, true);
            out.writeBytes(new byte[4]);
        });
        assertThatThrownBy(() -> Serializers.get().read(list)).isInstanceOf(FrameException.class)
                .hasMessageContaining(ArrayList.class.getName() + " claims").hasMessageContaining("bytes are left");
        WireIn map = payload(out -> {
            k.writeClass(out, HashMap.class);
            out.writeVarInt(Integer.MAX_VALUE, true);
            out.writeBytes(new byte[4]);
        });
        assertThatThrownBy(() -> Serializers.get().read(map)).hasMessageContaining(HashMap.class.getName() + " claims");
        WireIn longs = payload(out -> {
            k.writeClass(out, long[].class);
            out.writeVarInt(Integer.MAX_VALUE, true);
            out.writeBytes(new byte[4]);
        });
        assertThatThrownBy(() -> Serializers.get().read(longs)).hasMessageContaining("long[] claims 2147483646 elements");
        WireIn text = payload(out -> {
            k.writeClass(out, String.class);
            out.writeVarIntFlag(true, Integer.MAX_VALUE, true);
            out.writeBytes(new byte[4]);
        });
        assertThatThrownBy(() -> Serializers.get().read(text)).hasMessageContaining("a string claims 2147483646 characters");
    }
}
