package air.runtime.impl.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A generator resumed onto other layouts emits exactly the indices no earlier layout's reader
 * emitted: across three layouts, with positions drawn at random, every index in [0, n) comes out
 * once.
 */
class GeneratorReaderTest {

    private static final long N = 5_000;

    private static GeneratorReader<Long> reader(int instance, int parallelism, List<long[]> earlier) {
        return reader(instance, parallelism, 1, earlier);
    }

    private static GeneratorReader<Long> reader(int instance, int parallelism, long block, List<long[]> earlier) {
        GeneratorReader<Long> r = new GeneratorReader<>(i -> i, instance, parallelism, block, N, 0, 0);
        if (!earlier.isEmpty()) {
            r.resumeAfter(earlier);
        }
        return r;
    }

    /** Runs each instance of a layout until it emitted {@code budget} records or ended; returns the positions they stopped at. */
    private static long[] runLayout(int parallelism, List<long[]> earlier, Random random, int[] counts, boolean toEnd) {
        return runLayout(parallelism, 1, earlier, random, counts, toEnd);
    }

    private static long[] runLayout(int parallelism, long block, List<long[]> earlier, Random random, int[] counts, boolean toEnd) {
        long[] positions = new long[parallelism];
        for (int i = 0; i < parallelism; i++) {
            GeneratorReader<Long> r = reader(i, parallelism, block, earlier);
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

    /** With single indices dealt out in turn (generated sources) and in blocks (lists: a block of 1, 7 and 64 indices). */
    @ParameterizedTest(name = "blocks of {0}")
    @ValueSource(longs = {1, 7, 64})
    void three_layouts_one_after_another_emit_every_index_once(long block) {
        for (long seed = 1; seed <= 20; seed++) {
            Random random = new Random(seed);
            int[] counts = new int[(int) N];
            List<long[]> earlier = new ArrayList<>();
            earlier.add(runLayout(4, block, earlier, random, counts, false)); // 2 x 2
            earlier.add(runLayout(4 + random.nextInt(3), block, List.copyOf(earlier), random, counts, false)); // another layout
            runLayout(1 + random.nextInt(3), block, List.copyOf(earlier), random, counts, true); // the last one, to the end
            for (int i = 0; i < N; i++) {
                assertThat(counts[i]).as("seed %d, blocks of %d: index %d emitted", seed, block, i).isEqualTo(1);
            }
        }
    }

    @Test
    void in_blocks_each_instance_reads_runs_of_consecutive_indices_and_the_instances_advance_together() {
        List<Long> zero = new ArrayList<>();
        List<Long> one = new ArrayList<>();
        GeneratorReader<Long> a = reader(0, 2, 4, List.of());
        GeneratorReader<Long> b = reader(1, 2, 4, List.of());
        while (a.read(3, zero::add) != GeneratorReader.EXHAUSTED && zero.size() < 12) {
            // reads stop at a block's end: 3, 1, 3, 1, ...
        }
        while (b.read(100, one::add) != GeneratorReader.EXHAUSTED && one.size() < 12) {
            // as many as asked, up to the block's end
        }
        assertThat(zero.subList(0, 12)).containsExactly(0L, 1L, 2L, 3L, 8L, 9L, 10L, 11L, 16L, 17L, 18L, 19L);
        assertThat(one.subList(0, 12)).containsExactly(4L, 5L, 6L, 7L, 12L, 13L, 14L, 15L, 20L, 21L, 22L, 23L);
        assertThat(a.position()).as("after a block, the start of this instance's next one").isEqualTo(24);
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
        GeneratorReader<Long> r = new GeneratorReader<>(i -> i, 0, 1, 1, N, 0, 0);
        assertThatThrownBy(() -> r.resumeAfter(List.of(new long[0]))).hasMessageContaining("no instances");
    }
}
