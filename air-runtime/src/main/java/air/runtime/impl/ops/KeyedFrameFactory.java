package air.runtime.impl.ops;

import java.lang.reflect.Constructor;

/** Creates the frames of one window operator; the frame class may be a per-job clone. */
public final class KeyedFrameFactory<T> {

    private final Constructor<?> constructor;
    private final Object[] args;

    public KeyedFrameFactory(Constructor<?> constructor, Object... args) {
        this.constructor = constructor;
        this.args = args.clone();
    }

    public KeyedFrame<T> create() {
        return Reflection.newInstance(constructor, args);
    }
}
