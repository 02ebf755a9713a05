package air.runtime.serial;

import air.wire.WireOut;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The hash KEY routing places object keys by: a function of the key's value alone, the same on
 * every JVM, never an identity hash. The rule, by the key's class:
 * <ul>
 *   <li>{@code String}, boxed primitives, {@code BigInteger}, {@code BigDecimal}, {@code UUID} and
 *       {@code java.time} values: their {@code hashCode}, which their Javadoc specifies from the value;</li>
 *   <li>an enum: the hash of its constant's <b>name</b> (so reordering constants moves nothing);</li>
 *   <li>a record: {@code 31 * h + hash(component)} over its components in declaration order, each
 *       hashed by this rule (null: 0);</li>
 *   <li>a {@code List}: as {@code List.hashCode} specifies, elements by this rule; a {@code Set}: the sum of
 *       its elements' hashes; a {@code Map}: the sum of {@code hash(key) ^ hash(value)};</li>
 *   <li>any other class that overrides both {@code equals} and {@code hashCode} and is <b>value-like</b>
 *       — every instance field, its superclasses' too, is {@code final} or {@code transient}:
 *       {@code 31 * h + hash(field)} over its non-transient fields (superclass first, each class's
 *       by name; synthetic fields such as an inner class's outer instance left out), each by this
 *       rule (an array field by its elements). Its {@code equals} must compare those fields;</li>
 *   <li>refused ({@link UnstableKeyException}): arrays; classes that inherit {@code Object.equals} or
 *       {@code Object.hashCode} — equal keys would be the same object, whose hash is an identity hash;
 *       classes with custom equality but a non-final, non-transient field (a cached hash, mutable
 *       state: equal keys may differ in it), and such classes whose fields cannot be read (a JDK
 *       module's). Neither their {@code hashCode} (it may use identity or an iteration order) nor
 *       their serialized bytes (a cached hash, a {@code HashMap}'s order) are the same for equal keys.</li>
 * </ul>
 */
public final class StableHash {

    private StableHash() {
    }

    /** How one class is hashed. */
    private interface Hasher {
        int hash(Object key);
    }

    private static final ClassValue<Hasher> HASHERS = new ClassValue<>() {
        @Override
        protected Hasher computeValue(Class<?> type) {
            return hasherOf(type);
        }
    };

    private static final Set<Class<?>> VALUE_TYPES = Set.of(String.class, Boolean.class, Byte.class, Short.class, Character.class,
            Integer.class, Long.class, Float.class, Double.class, BigInteger.class, BigDecimal.class, UUID.class);

    /** The stable hash of a non-null key; throws {@link UnstableKeyException} for a type the rule refuses. */
    public static int of(Object key) {
        if (key instanceof String s) {
            return s.hashCode();
        }
        if (key instanceof Long l) {
            return Long.hashCode(l);
        }
        if (key instanceof Integer i) {
            return i;
        }
        return HASHERS.get(key.getClass()).hash(key);
    }

    /**
     * Throws {@link UnstableKeyException} when the rule refuses {@code key}'s class (cached per class: a
     * lookup after the first call). What a record's components hold is checked when it is hashed.
     */
    public static void check(Object key) {
        if (!(key instanceof String || key instanceof Long || key instanceof Integer)) {
            HASHERS.get(key.getClass());
        }
    }

    /**
     * Whether keys of {@code type} can be hashed stably, as far as the type says; throws naming it and
     * why otherwise. Interfaces, abstract classes and non-final record components are decided per
     * concrete class, when keys are hashed.
     */
    public static void requireStable(Class<?> type) {
        requireStable(type, new HashSet<>());
    }

    private static void requireStable(Class<?> type, Set<Class<?>> seen) {
        if (type.isPrimitive() || !seen.add(type)) {
            return;
        }
        if (type == Object.class || type.isInterface() || Modifier.isAbstract(type.getModifiers()) && !type.isEnum() && !type.isArray()) {
            return; // decided per concrete class, when keys are hashed
        }
        HASHERS.get(type); // refuses
        if (type.isRecord()) {
            for (RecordComponent c : type.getRecordComponents()) {
                Class<?> t = c.getType();
                if (t.isPrimitive() || t.isArray() || t.isRecord() || t.isEnum() || Modifier.isFinal(t.getModifiers())) {
                    try {
                        requireStable(t, seen);
                    } catch (UnstableKeyException e) {
                        throw new UnstableKeyException(type, "its component " + c.getName() + " is a " + t.getName() + ", which "
                                + e.getMessage().substring(e.getMessage().indexOf(": ") + 2));
                    }
                }
            }
        }
    }

    private static Hasher hasherOf(Class<?> type) {
        if (VALUE_TYPES.contains(type) || type.getName().startsWith("java.time.") && !type.isEnum()) {
            return Object::hashCode;
        }
        if (Enum.class.isAssignableFrom(type)) {
            return key -> ((Enum<?>) key).name().hashCode();
        }
        if (type.isArray()) {
            throw new UnstableKeyException(type, "arrays compare by identity; key by a List or a record instead");
        }
        if (type.isRecord()) {
            return recordHasher(type);
        }
        if (List.class.isAssignableFrom(type)) {
            return key -> {
                int h = 1;
                for (Object e : (List<?>) key) {
                    h = 31 * h + ofNullable(e);
                }
                return h;
            };
        }
        if (Set.class.isAssignableFrom(type)) {
            return key -> {
                int h = 0;
                for (Object e : (Set<?>) key) {
                    h += ofNullable(e);
                }
                return h;
            };
        }
        if (Map.class.isAssignableFrom(type)) {
            return key -> {
                int h = 0;
                for (Map.Entry<?, ?> e : ((Map<?, ?>) key).entrySet()) {
                    h += ofNullable(e.getKey()) ^ ofNullable(e.getValue());
                }
                return h;
            };
        }
        String inherited = inheritsFromObject(type);
        if (inherited != null) {
            throw new UnstableKeyException(type, "it inherits Object." + inherited + ", so equal keys are the same object and its hash"
                    + " is an identity hash, different on every JVM; give it equals and hashCode over its fields (a record has them),"
                    + " or key by one of its fields");
        }
        return valueClassHasher(type);
    }

    /** A value-like class's fields, hashed as a record's components; refuses a class that is not value-like. */
    private static Hasher valueClassHasher(Class<?> type) {
        List<Field> fields = new ArrayList<>();
        List<Class<?>> chain = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            chain.addFirst(c);
        }
        for (Class<?> c : chain) {
            List<Field> own = new ArrayList<>();
            for (Field f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (Modifier.isStatic(m) || Modifier.isTransient(m) || f.isSynthetic()) {
                    continue;
                }
                if (!Modifier.isFinal(m)) {
                    throw new UnstableKeyException(type, "its field " + c.getSimpleName() + "." + f.getName() + " is not final: equal keys"
                            + " may differ in it (a cached hash, mutable state), so neither its hashCode nor its bytes place equal keys"
                            + " alike; make the key a record, or the field final (or transient if equals ignores it)");
                }
                own.add(f);
            }
            own.sort(Comparator.comparing(Field::getName));
            fields.addAll(own);
        }
        for (Field f : fields) {
            try {
                f.setAccessible(true);
            } catch (RuntimeException e) {
                throw new UnstableKeyException(type, "its field " + f.getName() + " cannot be read to hash the key (" + e.getMessage()
                        + "); key by a String, a record or a List of its parts instead");
            }
        }
        Field[] all = fields.toArray(new Field[0]);
        return key -> {
            int h = 1;
            for (Field f : all) {
                Object v;
                try {
                    v = f.get(key);
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("cannot read " + type.getName() + "." + f.getName() + " to hash the key", e);
                }
                h = 31 * h + (v != null && v.getClass().isArray() ? arrayHash(v) : ofNullable(v));
            }
            return h;
        };
    }

    /** An array field's elements, as {@code List.hashCode} combines them, each by this rule. */
    private static int arrayHash(Object array) {
        int h = 1;
        for (int i = 0, n = Array.getLength(array); i < n; i++) {
            Object e = Array.get(array, i);
            h = 31 * h + (e != null && e.getClass().isArray() ? arrayHash(e) : ofNullable(e));
        }
        return h;
    }

    private static Hasher recordHasher(Class<?> type) {
        RecordComponent[] components = type.getRecordComponents();
        Method[] accessors = new Method[components.length];
        for (int i = 0; i < components.length; i++) {
            accessors[i] = components[i].getAccessor();
            try {
                accessors[i].setAccessible(true);
            } catch (RuntimeException e) {
                return SerializedHash::of; // a record of a module that does not open it: hashed by its bytes (records have no other fields)
            }
        }
        return key -> {
            int h = 1;
            for (Method m : accessors) {
                Object v;
                try {
                    v = m.invoke(key);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException("cannot read " + type.getName() + "." + m.getName() + " to hash the key", e);
                }
                h = 31 * h + ofNullable(v);
            }
            return h;
        };
    }

    private static int ofNullable(Object v) {
        return v == null ? 0 : of(v);
    }

    /** "equals" or "hashCode" when {@code type} takes it from {@code Object}; null when it overrides both. */
    private static String inheritsFromObject(Class<?> type) {
        try {
            if (type.getMethod("equals", Object.class).getDeclaringClass() == Object.class) {
                return "equals";
            }
            if (type.getMethod("hashCode").getDeclaringClass() == Object.class) {
                return "hashCode";
            }
            return null;
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A hash of a value's bytes as the JVM's serializer writes them (class name included). */
    private static final class SerializedHash {
        static int of(Object key) {
            WireOut out = new WireOut(64);
            Serializers.get().write(key, out);
            ByteBuffer b = out.buffer();
            int h = 1;
            while (b.hasRemaining()) {
                h = 31 * h + b.get();
            }
            return h;
        }
    }
}
