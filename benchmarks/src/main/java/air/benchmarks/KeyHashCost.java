package air.benchmarks;

import air.runtime.api.Codecs;
import air.runtime.impl.routing.KeyRouting;
import air.wire.WireOut;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * What the stable key hash and the serializer cost per key, against the old {@code hashCode} path,
 * in one process: for String, enum and record keys, the ns per owner lookup of each and their ratio,
 * then the bytes and ns per key Kryo writes (what a key without a codec costs on the wire).
 * {@code java -cp ... air.benchmarks.KeyHashCost [keys] [rounds]}; no JMH, so take the best of the rounds.
 */
public final class KeyHashCost {

    enum Color { RED, GREEN, BLUE, CYAN, MAGENTA, YELLOW, BLACK }

    record Shade(Color color, int level) { }

    private KeyHashCost() {
    }

    /** The owner as KEY routing computed it before: the key's own hashCode, mixed. */
    static int oldOwnerOf(Object key, int n) {
        int h = key.hashCode();
        h ^= h >>> 16;
        return Math.floorMod(h * 0x9E3779B9, n);
    }

    public static void main(String[] args) {
        int keys = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        Object[] strings = new Object[keys];
        Object[] enums = new Object[keys];
        Object[] records = new Object[keys];
        for (int i = 0; i < keys; i++) {
            strings[i] = "campaign-" + (i % 1000);
            enums[i] = Color.values()[i % Color.values().length];
            records[i] = new Shade(Color.values()[i % Color.values().length], i % 100);
        }
        for (var c : List.of(List.of("String", strings), List.of("enum", enums), List.of("record", records))) {
            Object[] ks = (Object[]) c.get(1);
            double before = best(ks, k -> oldOwnerOf(k, 16), rounds);
            double after = best(ks, k -> KeyRouting.ownerOf(k, 16), rounds);
            System.out.printf("%-7s owner lookup: hashCode %.2f ns/key, stable hash %.2f ns/key, ratio %.2f%n",
                    c.get(0), before, after, after / before);
        }
        for (var c : List.of(List.of("enum", enums), List.of("record", records))) {
            Object[] ks = (Object[]) c.get(1);
            WireOut probe = new WireOut(64);
            Codecs.serialized().write(ks[0], probe);
            double ns = best(ks, k -> {
                WireOut out = new WireOut(64);
                Codecs.serialized().write(k, out);
                return out.size();
            }, rounds);
            System.out.printf("%-7s kryo: %d bytes/key (class name included), %.1f ns/key%n", c.get(0), probe.size() - 4, ns);
        }
    }

    private static volatile int sink;

    private static double best(Object[] keys, ToIntFunction<Object> f, int rounds) {
        double best = Double.MAX_VALUE;
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            int acc = 0;
            for (Object k : keys) {
                acc += f.applyAsInt(k);
            }
            long t1 = System.nanoTime();
            sink += acc;
            best = Math.min(best, (t1 - t0) / (double) keys.length);
        }
        return best;
    }
}
