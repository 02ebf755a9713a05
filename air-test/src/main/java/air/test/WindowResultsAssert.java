package air.test;

import air.runtime.api.WindowResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.assertj.core.api.AbstractAssert;
import org.assertj.core.api.Assertions;
import org.assertj.core.api.MapAssert;

/**
 * Assertions on what a windowed job emitted, per window: {@code assertThatWindows(sink.items())
 * .hasWindows(3).window(0, 10_000).containsOnly(entry("a", 2L))}. Window results arrive in no
 * particular order across keys and workers; these assertions compare per window, as sets of
 * (key, value), and say which window differs.
 */
public final class WindowResultsAssert<K, V> extends AbstractAssert<WindowResultsAssert<K, V>, List<WindowResult<K, V>>> {

    private WindowResultsAssert(List<WindowResult<K, V>> actual) {
        super(actual, WindowResultsAssert.class);
    }

    public static <K, V> WindowResultsAssert<K, V> assertThatWindows(Collection<? extends WindowResult<K, V>> results) {
        return new WindowResultsAssert<>(new ArrayList<>(results));
    }

    /** Results by window start, each window's results by key; fails on a key that a window emitted twice. */
    public Map<Long, Map<K, V>> byWindow() {
        isNotNull();
        Map<Long, Map<K, V>> windows = new TreeMap<>();
        for (WindowResult<K, V> r : actual) {
            Map<K, V> window = windows.computeIfAbsent(r.start(), s -> new LinkedHashMap<>());
            if (window.containsKey(r.key())) {
                failWithMessage("window [%d, %d) emitted key %s twice: %s and %s", r.start(), r.end(), r.key(), window.get(r.key()), r.value());
            }
            window.put(r.key(), r.value());
        }
        return windows;
    }

    /** Exactly {@code count} windows emitted something. */
    public WindowResultsAssert<K, V> hasWindows(int count) {
        Map<Long, Map<K, V>> windows = byWindow();
        if (windows.size() != count) {
            failWithMessage("expected %d windows with results but %d had some: %s", count, windows.size(), windows.keySet());
        }
        return this;
    }

    /** The results of window [start, end) by key, to assert on (empty when the window emitted nothing). */
    public MapAssert<K, V> window(long start, long end) {
        Map<Long, Map<K, V>> windows = byWindow();
        for (WindowResult<K, V> r : actual) {
            if (r.start() == start && r.end() != end) {
                failWithMessage("window starting at %d ends at %d, not %d", start, r.end(), end);
            }
        }
        return Assertions.assertThat(windows.getOrDefault(start, Map.of())).as("window [%d, %d)", start, end);
    }

    /** Every result is exactly one of {@code expected} and every expected one was emitted ({@code "[start,end) key=value"}). */
    public WindowResultsAssert<K, V> hasRows(String... expected) {
        Assertions.assertThat(rows(actual)).containsExactlyInAnyOrder(expected);
        return this;
    }

    /** The results as {@code "[start,end) key=value"} lines, sorted: a stable text to compare two runs by. */
    public static List<String> rows(Collection<? extends WindowResult<?, ?>> results) {
        List<String> rows = new ArrayList<>();
        for (WindowResult<?, ?> r : results) {
            rows.add("[" + r.start() + "," + r.end() + ") " + r.key() + "=" + Objects.toString(r.value()));
        }
        rows.sort(null);
        return rows;
    }
}
