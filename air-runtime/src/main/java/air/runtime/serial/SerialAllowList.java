package air.runtime.serial;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/**
 * The classes the default serializer may read and write, in this JVM: Kryo names each value's
 * class in its bytes, and bytes come from other peers, replica copies and checkpoint files; a
 * class not on this list is refused, naming it, before any of its fields is read (so bytes cannot
 * make a peer build arbitrary objects whose {@code hashCode}, {@code equals} or
 * {@code compareTo} run as a map or set is filled).
 *
 * <p>On the list: the primitives, the JDK's value and collection classes ({@link #DEFAULT}, and
 * everything under {@code java.time.}), arrays of listed classes, the engine's own types
 * ({@code air.}), the package of every class that builds a pipeline (and its subpackages: a
 * job's records usually live beside it), and what the system property {@code air.serial.allow}
 * or {@link #allow} adds — class names, or packages ending in {@code .} or {@code .*}. The
 * property's value {@code *} turns the check off (logged at WARN).
 */
public final class SerialAllowList {

    /** The system property that adds classes and packages, comma-separated; {@code *}: allow everything. */
    public static final String PROPERTY = "air.serial.allow";

    /** The JDK classes on the list by name: values, collections, and the JDK's own wrappers and immutable collections. */
    static final Set<String> DEFAULT = Set.of(
            "java.lang.String", "java.lang.Boolean", "java.lang.Byte", "java.lang.Short", "java.lang.Character", "java.lang.Integer",
            "java.lang.Long", "java.lang.Float", "java.lang.Double", "java.lang.Void", "java.lang.Object",
            "java.math.BigInteger", "java.math.BigDecimal", "java.util.UUID", "java.util.Date", "java.util.Locale", "java.util.Currency",
            "java.util.BitSet", "java.util.Optional", "java.util.OptionalInt", "java.util.OptionalLong", "java.util.OptionalDouble",
            "java.util.ArrayList", "java.util.LinkedList", "java.util.ArrayDeque", "java.util.PriorityQueue", "java.util.HashMap",
            "java.util.LinkedHashMap", "java.util.TreeMap", "java.util.HashSet", "java.util.LinkedHashSet", "java.util.TreeSet",
            "java.util.EnumMap", "java.util.RegularEnumSet", "java.util.JumboEnumSet", "java.util.IdentityHashMap",
            "java.util.KeyValueHolder", "java.util.AbstractMap$SimpleEntry", "java.util.AbstractMap$SimpleImmutableEntry",
            "java.util.Arrays$ArrayList", "java.util.concurrent.ConcurrentHashMap", "java.util.concurrent.ConcurrentSkipListMap",
            "java.util.concurrent.ConcurrentSkipListSet", "java.util.concurrent.CopyOnWriteArrayList", "java.util.concurrent.TimeUnit",
            "java.net.URI", "java.util.regex.Pattern");

    /** Packages on the list by prefix: the engine's types, the JDK's immutable and wrapper collections, java.time. */
    private static final List<String> DEFAULT_PREFIXES = List.of("air.", "java.time.", "java.util.ImmutableCollections$",
            "java.util.Collections$");

    private static final CopyOnWriteArrayList<String> PREFIXES = new CopyOnWriteArrayList<>(DEFAULT_PREFIXES);
    private static final Set<String> NAMES = ConcurrentHashMap.newKeySet();
    private static volatile boolean everything;

    static {
        String property = System.getProperty(PROPERTY, "");
        for (String entry : property.split(",")) {
            if (!entry.isBlank()) {
                allow(entry.strip());
            }
        }
    }

    private SerialAllowList() {
    }

    /**
     * Adds class names ({@code com.acme.Click}) or packages ({@code com.acme.} or
     * {@code com.acme.*}, with their subpackages); {@code *} allows every class.
     */
    public static void allow(String... classesOrPackages) {
        for (String entry : classesOrPackages) {
            if (entry.equals("*")) {
                if (!everything) {
                    LoggerFactory.getLogger(SerialAllowList.class).warn("the serializer's allow-list is off ({}=*): bytes from peers, "
                            + "replicas and checkpoint files may name any class", PROPERTY);
                }
                everything = true;
            } else if (entry.endsWith(".*")) {
                PREFIXES.addIfAbsent(entry.substring(0, entry.length() - 1));
            } else if (entry.endsWith(".")) {
                PREFIXES.addIfAbsent(entry);
            } else {
                NAMES.add(entry);
            }
        }
    }

    /** Adds the package of {@code type} and its subpackages (the DSL adds the class that builds each pipeline). */
    public static void allowPackageOf(Class<?> type) {
        String pkg = type.getPackageName();
        if (!pkg.isEmpty() && !pkg.startsWith("java.") && !pkg.startsWith("javax.") && !pkg.startsWith("jdk.")) {
            PREFIXES.addIfAbsent(pkg + ".");
        }
    }

    /** Whether values of {@code type} may be read and written. */
    public static boolean allows(Class<?> type) {
        Class<?> t = type;
        while (t.isArray()) {
            t = t.getComponentType();
        }
        if (everything || t.isPrimitive()) {
            return true;
        }
        String name = t.getName();
        if (DEFAULT.contains(name) || NAMES.contains(name)) {
            return true;
        }
        for (String prefix : PREFIXES) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** Why {@code type} is refused, and how to allow it. */
    static String refusal(Class<?> type) {
        String pkg = type.getPackageName();
        return "class " + type.getName() + " is not on the serializer's allow-list, so it is neither read nor written: allow it with -D"
                + PROPERTY + "=" + type.getName() + (pkg.isEmpty() ? "" : " (or its package: " + pkg + ".)")
                + " or SerialAllowList.allow(...) on every peer; the packages of the classes that build pipelines, air.* and the JDK's"
                + " value and collection classes are allowed already";
    }
}
