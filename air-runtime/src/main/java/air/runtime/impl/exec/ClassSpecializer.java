package air.runtime.impl.exec;

import air.runtime.impl.ops.Reflection;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Constructor;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Gives each operator position of a job its own copy of the operator's class (a hidden class
 * defined from the same bytes). The JIT keeps type profiles per class, so a fused chain stays
 * monomorphic and inlinable however many other pipelines this JVM has run. Copies are unloaded
 * with the job. Operator classes eligible for copying are top-level, with no nested classes or
 * lambdas of their own.
 */
final class ClassSpecializer {

    private static final Map<Class<?>, byte[]> BYTES = new ConcurrentHashMap<>();

    private final boolean enabled;

    ClassSpecializer(boolean enabled) {
        this.enabled = enabled;
    }

    /** A fresh copy of {@code type} (or {@code type} itself when disabled). */
    Class<?> specialize(Class<?> type) {
        if (!enabled) {
            return type;
        }
        try {
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(type, MethodHandles.lookup());
            return lookup.defineHiddenClass(bytesOf(type), true).lookupClass();
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot specialize " + type.getName(), e);
        }
    }

    static Constructor<?> constructorOf(Class<?> type) {
        Constructor<?>[] constructors = type.getConstructors();
        if (constructors.length != 1) {
            throw new IllegalStateException(type.getName() + " must have exactly one public constructor");
        }
        return constructors[0];
    }

    <T> T newInstance(Class<?> type, Object... args) {
        return Reflection.newInstance(constructorOf(type), args);
    }

    private static byte[] bytesOf(Class<?> type) {
        return BYTES.computeIfAbsent(type, t -> {
            String resource = t.getName().substring(t.getName().lastIndexOf('.') + 1) + ".class";
            try (InputStream in = t.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("class file of " + t.getName() + " not found");
                }
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}
