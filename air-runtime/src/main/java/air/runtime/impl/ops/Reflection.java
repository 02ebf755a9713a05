package air.runtime.impl.ops;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;

/** Construction through reflection (operator classes may be per-job hidden copies), failures unwrapped. */
public final class Reflection {

    private Reflection() {
    }

    @SuppressWarnings("unchecked")
    public static <T> T newInstance(Constructor<?> constructor, Object... args) {
        try {
            return (T) constructor.newInstance(args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException("cannot create " + constructor.getDeclaringClass().getName(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create " + constructor.getDeclaringClass().getName(), e);
        }
    }
}
