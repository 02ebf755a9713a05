package air.runtime.serial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.impl.routing.KeyRouting;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * KEY routing's hash of object keys is a function of the value alone: pinned here for fixed keys, so
 * a change that makes it depend on the JVM (an identity hash, an ordinal, an iteration order) fails.
 */
class StableHashTest {

    enum Color { RED, GREEN, BLUE }

    /** The same constants in another order: the hash follows the name, not the ordinal. */
    enum Reordered { BLUE, RED }

    record Shade(Color color, int level) { }

    /** Equality by identity: refused. */
    static final class Handle {
        final int id;

        Handle(int id) {
            this.id = id;
        }
    }

    record HoldsHandle(String name, Handle handle) { }

    /** Overrides equals and hashCode, every field final: hashed by its fields. */
    static final class Point {
        final int x;
        final int y;

        Point(int x, int y) {
            this.x = x;
            this.y = y;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Point p && p.x == x && p.y == y;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(Point.class) + x; // unstable on purpose: the rule must not use it
        }
    }

    /** Custom equality with a lazily cached hash in a plain field: equal keys may differ in it, so refused. */
    static final class CachedHash {
        final String name;
        int hash;

        CachedHash(String name) {
            this.name = name;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof CachedHash c && c.name.equals(name);
        }

        @Override
        public int hashCode() {
            if (hash == 0) {
                hash = name.hashCode();
            }
            return hash;
        }
    }

    /** Value-like, a set inside: equal keys may iterate their sets in different orders; a transient cache is left out. */
    static final class Tagged {
        final String name;
        final Set<String> tags;
        final int[] counts;
        transient int cachedHash;

        Tagged(String name, Set<String> tags, int... counts) {
            this.name = name;
            this.tags = tags;
            this.counts = counts;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Tagged t && t.name.equals(name) && t.tags.equals(tags) && Arrays.equals(t.counts, counts);
        }

        @Override
        public int hashCode() {
            return name.hashCode();
        }
    }

    @Test
    void fixed_keys_have_pinned_hashes_and_owners() {
        assertHashAndOwners("alpha", 92909918, 1, 0, 0);
        assertHashAndOwners(42L, 42, 0, 1, 1);
        assertHashAndOwners(7, 7, 1, 2, 5);
        assertHashAndOwners(Color.RED, 81009, 0, 1, 2);
        assertHashAndOwners(Color.BLUE, 2041946, 1, 1, 4);
        assertHashAndOwners(new Shade(Color.BLUE, 3), 63301290, 1, 0, 0);
        assertHashAndOwners(List.of("a", "b"), 4066, 0, 1, 1);
    }

    private static void assertHashAndOwners(Object key, int hash, int of2, int of3, int of7) {
        assertThat(StableHash.of(key)).as("hash of " + key).isEqualTo(hash);
        assertThat(List.of(KeyRouting.ownerOf(key, 2), KeyRouting.ownerOf(key, 3), KeyRouting.ownerOf(key, 7)))
                .as("owners of " + key).containsExactly(of2, of3, of7);
    }

    @Test
    void enums_hash_by_name_not_ordinal_or_identity() {
        assertThat(StableHash.of(Reordered.BLUE)).isEqualTo(StableHash.of(Color.BLUE)).isEqualTo("BLUE".hashCode());
        assertThat(StableHash.of(Color.RED)).isNotEqualTo(System.identityHashCode(Color.RED));
    }

    @Test
    void equal_composites_hash_alike_whatever_their_collection_class() {
        assertThat(StableHash.of(Set.of(Color.RED, Color.BLUE))).isEqualTo(StableHash.of(new TreeSet<>(Set.of(Color.BLUE, Color.RED))));
        assertThat(StableHash.of(Map.of("a", Color.RED))).isEqualTo(StableHash.of(new HashMap<>(Map.of("a", Color.RED))));
        assertThat(StableHash.of(new Point(1, 2))).isEqualTo(StableHash.of(new Point(1, 2))).isNotEqualTo(StableHash.of(new Point(2, 1)));
    }

    @Test
    void value_like_classes_hash_by_their_fields_so_equal_keys_hash_alike_whatever_their_bytes() {
        Tagged ab = new Tagged("t", new LinkedHashSet<>(List.of("a", "b")), 1, 2);
        Tagged ba = new Tagged("t", new LinkedHashSet<>(List.of("b", "a")), 1, 2);
        ba.cachedHash = 99;
        assertThat(ab).isEqualTo(ba);
        assertThat(StableHash.of(ab)).isEqualTo(StableHash.of(ba)).isNotEqualTo(StableHash.of(new Tagged("t", Set.of("a"), 1, 2)))
                .isNotEqualTo(StableHash.of(new Tagged("t", Set.of("a", "b"), 2, 1)));
        assertThat(StableHash.of(new Point(1, 2))).isEqualTo(31 * (31 + 1) + 2); // fields x, y in name order
    }

    @Test
    void a_class_with_custom_equality_and_a_field_that_is_not_final_is_refused_naming_it() {
        CachedHash a = new CachedHash("a");
        CachedHash b = new CachedHash("a");
        a.hashCode(); // a's cache is filled, b's is not: equal keys whose bytes differ
        assertThat(a).isEqualTo(b);
        assertThatThrownBy(() -> StableHash.of(b)).isInstanceOf(UnstableKeyException.class).hasMessageContaining(CachedHash.class.getName())
                .hasMessageContaining("field CachedHash.hash is not final");
        assertThatThrownBy(() -> StableHash.requireStable(CachedHash.class)).isInstanceOf(UnstableKeyException.class);
    }

    @Test
    void identity_keys_are_refused_naming_the_type() {
        assertThatThrownBy(() -> StableHash.requireStable(Handle.class)).isInstanceOf(UnstableKeyException.class)
                .hasMessageContaining(Handle.class.getName()).hasMessageContaining("inherits Object.equals");
        assertThatThrownBy(() -> StableHash.requireStable(HoldsHandle.class)).isInstanceOf(UnstableKeyException.class)
                .hasMessageContaining(HoldsHandle.class.getName()).hasMessageContaining("component handle");
        assertThatThrownBy(() -> StableHash.requireStable(byte[].class)).hasMessageContaining("arrays compare by identity");
        assertThatThrownBy(() -> StableHash.of(new Handle(1))).isInstanceOf(UnstableKeyException.class);
        assertThatThrownBy(() -> StableHash.check(new Handle(1))).isInstanceOf(UnstableKeyException.class);
        assertThatCode(() -> StableHash.requireStable(Shade.class)).doesNotThrowAnyException();
        assertThatCode(() -> StableHash.requireStable(Object.class)).doesNotThrowAnyException(); // decided per key class, at run time
    }
}
