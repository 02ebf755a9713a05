package air.runtime.serial;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.CollectionSerializer;
import com.esotericsoftware.kryo.serializers.MapSerializer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;

/**
 * Length caps for what Kryo sizes from a count it reads before the elements: a collection, map or
 * array may claim no more elements than bytes are left in the value (every element takes at least
 * one), so a few bytes claiming 2^31 elements are refused with a clear error instead of
 * allocating gigabytes. Installed on every Kryo the default serializer makes.
 */
final class BoundedSizes {

    private BoundedSizes() {
    }

    @SuppressWarnings("unchecked") // Kryo's registrations hold raw serializers
    static void install(Kryo kryo) {
        // the classes Kryo presizes from the count; subclasses share the caps (their format is unchanged)
        kryo.addDefaultSerializer(ArrayList.class, new BoundedCollection());
        kryo.addDefaultSerializer(HashSet.class, new BoundedCollection());
        kryo.addDefaultSerializer(HashMap.class, new BoundedMap());
        for (Class<?> array : new Class<?>[] {byte[].class, char[].class, short[].class, int[].class, long[].class, float[].class,
                double[].class, boolean[].class, String[].class, Object[].class}) {
            Registration r = kryo.getRegistration(array);
            r.setSerializer(new BoundedArray<>(r.getSerializer()));
        }
    }

    static void require(long count, Input input, String what) {
        int left = input.limit() - input.position();
        if (count > left) {
            throw new KryoException("a " + what + " claims " + count + " elements but only " + left + " bytes are left");
        }
    }

    /** Kryo's collection serializer, refusing a count larger than the bytes left. */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static final class BoundedCollection extends CollectionSerializer<Collection> {
        @Override
        protected Collection create(Kryo kryo, Input input, Class<? extends Collection> type, int size) {
            require(size, input, type.getName());
            return super.create(kryo, input, type, size);
        }
    }

    /** Kryo's map serializer, refusing a count larger than the bytes left. */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static final class BoundedMap extends MapSerializer<Map> {
        @Override
        protected Map create(Kryo kryo, Input input, Class<? extends Map> type, int size) {
            require(size, input, type.getName());
            return super.create(kryo, input, type, size);
        }
    }

    /** An array serializer (length + 1 first, 0 for null) that peeks at the length before the array is made. */
    static final class BoundedArray<T> extends Serializer<T> {
        private final Serializer<T> inner;

        BoundedArray(Serializer<T> inner) {
            super(inner.getAcceptsNull(), inner.isImmutable());
            this.inner = inner;
        }

        @Override
        public void write(Kryo kryo, Output output, T object) {
            inner.write(kryo, output, object);
        }

        @Override
        public T read(Kryo kryo, Input input, Class<? extends T> type) {
            int start = input.position();
            int length = input.readVarInt(true) - 1;
            input.setPosition(start);
            require(length, input, type.getSimpleName());
            return inner.read(kryo, input, type);
        }

        @Override
        public T copy(Kryo kryo, T original) {
            return inner.copy(kryo, original);
        }
    }
}
