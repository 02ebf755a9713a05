package air.runtime.impl.ops;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;

/** Creates the frames of one window operator; the frame class may be a per-job clone. */
public final class KeyedFrameFactory<T> {

    private final Constructor<?> constructor;
    private final Object[] args;

    public KeyedFrameFactory(Constructor<?> constructor, Object... args) {
        this.constructor = constructor;
        this.args = args.clone();
    }

    @SuppressWarnings("unchecked")
    public KeyedFrame<T> create() {
        try {
            return (KeyedFrame<T>) constructor.newInstance(args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException("cannot create a window frame", e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create a window frame", e);
        }
    }
}
