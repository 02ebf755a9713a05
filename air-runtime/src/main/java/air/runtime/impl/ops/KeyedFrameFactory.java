package air.runtime.impl.ops;

import java.lang.reflect.Constructor;

/**
 * Creates the frames of one window operator; the frame class may be a per-job clone. A job with
 * incremental checkpoints gets {@link LayeredFrame}s around the plain ones ({@link #layered}),
 * chosen once here rather than tested per record.
 */
public final class KeyedFrameFactory<T> {

    private final Constructor<?> constructor;
    private final Object[] args;
    private final boolean layered;

    public KeyedFrameFactory(Constructor<?> constructor, Object... args) {
        this(false, constructor, args);
    }

    private KeyedFrameFactory(boolean layered, Constructor<?> constructor, Object... args) {
        this.constructor = constructor;
        this.args = args.clone();
        this.layered = layered;
    }

    /** Frames of {@code inner}'s kind in two layers ({@code layeredConstructor}: of {@link LayeredFrame} or its per-job clone). */
    public static <T> KeyedFrameFactory<T> layered(Constructor<?> layeredConstructor, KeyedFrameFactory<T> inner) {
        return new KeyedFrameFactory<>(true, layeredConstructor, inner);
    }

    /** Whether this factory's frames are {@link LayeredFrame}s: they can write what changed since the last snapshot. */
    public boolean layered() {
        return layered;
    }

    public KeyedFrame<T> create() {
        return Reflection.newInstance(constructor, args);
    }
}
