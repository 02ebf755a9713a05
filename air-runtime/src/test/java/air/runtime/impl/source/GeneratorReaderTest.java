package air.runtime.impl.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A generator resumed onto other layouts emits exactly the indices no earlier layout's reader
 * emitted: across three layouts, with positions drawn at random, every index in [0, n) comes out
 * once.
 */
class GeneratorReaderTest {

    private static final long N = 5_000;

    private static GeneratorReader<Long> reader(int instance, int parallelism, List<long[]> earlier) {
        GeneratorReader<Long> r = new GeneratorReader<>(i -> i, instance, parallelism, N, 0, 0);
        if (!earlier.isEmpty()) {
            r.resumeAfter(earlier);
        }
        return r;
    }

    /** Runs each instance of a layout until it emitted {@code budget} records or ended; returns the positions they stopped at. */
    private static long[] runLayout(int parallelism, List<long[]> earlier, Random random, int[] counts, boolean toEnd) {
        long[] positions = new long[parallelism];
        for (int i = 0; i < parallelism; i++) {
            GeneratorReader<Long> r = reader(i, parallelism, earlier);
            long budget = toEnd ? Long.MAX_VALUE : random.nextInt(900);
            long emitted = 0;
            while (emitted < budget) {
                int n = r.read((int) Math.min(7, budget - emitted), x -> counts[(int) (long) x]++);
                if (n == GeneratorReader.EXHAUSTED) {
                    break;
                }
                emitted += n;
            }
            positions[i] = r.position();
        }
        return positions;
    }

    @Test
    void three_layouts_one_after_another_emit_every_index_once() {
        for (long seed = 1; seed <= 20; seed++) {
            Random random = new Random(seed);
            int[] counts = new int[(int) N];
            List<long[]> earlier = new ArrayList<>();
            earlier.add(runLayout(4, earlier, random, counts, false)); // 2 x 2
            earlier.add(runLayout(4 + random.nextInt(3), List.copyOf(earlier), random, counts, false)); // another layout
            runLayout(1 + random.nextInt(3), List.copyOf(earlier), random, counts, true); // the last one, to the end
            for (int i = 0; i < N; i++) {
                assertThat(counts[i]).as("seed %d: index %d emitted", seed, i).isEqualTo(1);
            }
        }
    }

    @Test
    void a_restart_of_the_new_layout_seeks_back_and_emits_the_same_again() {
        List<long[]> earlier = List.of(new long[] {100, 97, 250});
        GeneratorReader<Long> first = reader(1, 2, earlier);
        List<Long> a = new ArrayList<>();
        first.read(10, a::add);
        long position = first.position();
        first.read(50, a::add);
        GeneratorReader<Long> again = reader(1, 2, earlier);
        again.seek(position);
        List<Long> b = new ArrayList<>();
        again.read(50, b::add);
        assertThat(b).isEqualTo(a.subList(10, a.size()));
        // 99 (= 0 mod 3, below 100) and 101, 107 (= 2 mod 3, below 250) were emitted before; 97, 103 (= 1 mod 3, from 97 on) were not
        assertThat(a).allMatch(x -> x % 2 == 1).contains(97L, 103L, 105L).doesNotContain(99L, 101L, 107L);
    }

    @Test
    void a_counter_that_feeds_it_a_duplicate_or_a_gap_is_caught() {
        // the check above must fail on bad output: an earlier layout that says it emitted less than it did duplicates
        int[] counts = new int[(int) N];
        List<long[]> earlier = List.of(runLayout(2, List.of(), new Random(3), counts, false));
        long[] understated = earlier.get(0).clone();
        understated[0] = Math.max(0, understated[0] - 2);
        runLayout(3, List.of(understated), new Random(4), counts, true);
        assertThat(counts).contains(2);
    }

    @Test
    void an_empty_earlier_layout_is_refused() {
        GeneratorReader<Long> r = new GeneratorReader<>(i -> i, 0, 1, N, 0, 0);
        assertThatThrownBy(() -> r.resumeAfter(List.of(new long[0]))).hasMessageContaining("no instances");
    }
}
