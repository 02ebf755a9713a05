package air.runtime.serial;

import air.runtime.api.Serializer;
import java.util.Iterator;
import java.util.ServiceLoader;

/** The JVM's serializer: the first {@link Serializer} provider found by {@link ServiceLoader}, else Kryo. */
public final class Serializers {

    private static final Serializer SERIALIZER = load();

    private Serializers() {
    }

    public static Serializer get() {
        return SERIALIZER;
    }

    private static Serializer load() {
        Iterator<Serializer> providers = ServiceLoader.load(Serializer.class).iterator();
        return providers.hasNext() ? providers.next() : new KryoSerializer();
    }
}
