package air.runtime.api;

import java.util.List;

/**
 * The {@code n} best keys of one window {@code [start, end)}, best first: each a
 * {@link WindowResult} of that window. Fewer than {@code n} when the window had fewer keys.
 */
public record WindowTopK<K, R>(long start, long end, List<WindowResult<K, R>> top) {

    public WindowTopK {
        top = List.copyOf(top);
    }
}
