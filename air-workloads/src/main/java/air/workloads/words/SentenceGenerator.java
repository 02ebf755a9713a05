package air.workloads.words;

import air.workloads.ysb.YsbGenerator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Seeded sentences for a word count, pure in the sentence index like the YSB events (so every
 * position replays): sentence {@code i} has 3 to 8 words drawn, skewed towards the front, from a
 * fixed vocabulary of {@value #WORDS} made-up words, and event time
 * {@code T0 + i * 1000 / rate} ms. The vocabulary is sorted, so a word's index is its rank.
 */
public final class SentenceGenerator {

    /** Words in the vocabulary. */
    public static final int WORDS = 512;

    private static final String[] SYLLABLES = {"ba", "ko", "ri", "mu", "te", "sa", "lo", "ne"};
    private static final String[] VOCABULARY = vocabulary();

    private final long seed;
    private final long rate;

    public SentenceGenerator(long seed, long rate) {
        if (rate <= 0) {
            throw new IllegalArgumentException("SentenceGenerator(seed, rate): rate must be > 0, was " + rate);
        }
        this.seed = seed;
        this.rate = rate;
    }

    /** One sentence: its index, event time and text (words separated by single spaces). */
    public record Sentence(long index, long eventTime, String text) { }

    /** Every word of two or three syllables, sorted: the first {@value #WORDS}. */
    private static String[] vocabulary() {
        List<String> all = new ArrayList<>();
        for (String a : SYLLABLES) {
            for (String b : SYLLABLES) {
                all.add(a + b);
                for (String c : SYLLABLES) {
                    all.add(a + b + c);
                }
            }
        }
        String[] words = all.stream().sorted().distinct().limit(WORDS).toArray(String[]::new);
        if (words.length != WORDS) {
            throw new IllegalStateException("vocabulary of " + words.length + " words");
        }
        return words;
    }

    /** The word of rank {@code index} in the vocabulary. */
    public static String word(int index) {
        return VOCABULARY[index];
    }

    /** The rank of {@code word}, or -1 when it is not in the vocabulary. */
    public static int indexOf(String word) {
        int i = Arrays.binarySearch(VOCABULARY, Objects.requireNonNull(word, "word"));
        return i >= 0 ? i : -1;
    }

    /** How many words sentence {@code i} has. */
    public int length(long i) {
        return 3 + (int) Long.remainderUnsigned(YsbGenerator.draw(seed, 16 * i), 6);
    }

    /** The rank of word {@code j} of sentence {@code i}: {@code floor(WORDS * u^2)} for a uniform {@code u}, so low ranks are common. */
    public int wordIndex(long i, int j) {
        double u = (YsbGenerator.draw(seed, 16 * i + 1 + j) >>> 11) * 0x1.0p-53;
        return (int) (WORDS * u * u);
    }

    public long eventTime(long i) {
        return YsbGenerator.T0 + i * 1000 / rate;
    }

    public Sentence sentence(long i) {
        int n = length(i);
        StringBuilder text = new StringBuilder(n * 7);
        for (int j = 0; j < n; j++) {
            text.append(j == 0 ? "" : " ").append(VOCABULARY[wordIndex(i, j)]);
        }
        return new Sentence(i, eventTime(i), text.toString());
    }

    public long rate() {
        return rate;
    }
}
