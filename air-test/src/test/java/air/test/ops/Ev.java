package air.test.ops;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/** A test record: a key, an event time and a value; {@code producer} says which partial instance reads it. */
record Ev(long key, long time, long value, int producer) {

    /** {@code n} records with keys {@code 0 .. keys-1}, times in {@code [0, maxTime)}, values 1-5, two producers; seeded. */
    static List<Ev> random(long seed, int n, int keys, long maxTime) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Ev> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Ev(r.nextInt(keys), r.nextLong(maxTime), 1 + r.nextInt(5), r.nextInt(2)));
        }
        out.sort(Comparator.comparingLong(Ev::time));
        return out;
    }

    @Override
    public String toString() {
        return "k" + key + "/" + time + "/" + value;
    }
}
