package air.benchmarks;

import air.workloads.ysb.YsbEvent;
import java.util.Arrays;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;

/** The loop's YSBM rows in canonical text (YSB-SPEC 9): per window, campaigns with both clicks and views, unsigned order. */
final class YsbRowsOut {

    private YsbRowsOut() {
    }

    static String ratios(LongObjectHashMap<LongLongHashMap> clicks, LongObjectHashMap<LongLongHashMap> views) {
        StringBuilder out = new StringBuilder();
        for (long window : clicks.keySet().toSortedArray()) {
            LongLongHashMap c = clicks.get(window);
            LongLongHashMap v = views.get(window);
            for (long key : unsignedOrder(c)) {
                if (v == null || !v.containsKey(key)) {
                    continue;
                }
                long n = c.get(key);
                long m = v.get(key);
                out.append(window).append(',').append(YsbEvent.hex(key)).append(',').append(n).append(',').append(m).append(',')
                   .append(n * 1_000_000 / m).append('\n');
            }
        }
        return out.toString();
    }

    /** The keys of {@code map} in unsigned order (YSB-SPEC 6.1). */
    static long[] unsignedOrder(LongLongHashMap map) {
        long[] keys = map.keySet().toArray();
        for (int i = 0; i < keys.length; i++) {
            keys[i] ^= Long.MIN_VALUE; // signed order of the flipped keys is the unsigned order
        }
        Arrays.sort(keys);
        for (int i = 0; i < keys.length; i++) {
            keys[i] ^= Long.MIN_VALUE;
        }
        return keys;
    }

    /** Rows and events (clicks + views) of the pairs with both. */
    static long[] totals(LongObjectHashMap<LongLongHashMap> clicks, LongObjectHashMap<LongLongHashMap> views) {
        long[] t = new long[2];
        clicks.forEachKeyValue((window, c) -> {
            LongLongHashMap v = views.get(window);
            c.forEachKeyValue((key, n) -> {
                if (v != null && v.containsKey(key)) {
                    t[0]++;
                    t[1] += n + v.get(key);
                }
            });
        });
        return t;
    }
}
