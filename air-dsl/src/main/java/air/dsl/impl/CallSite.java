package air.dsl.impl;

import air.runtime.Engine;
import java.net.URL;
import java.security.CodeSource;
import java.util.Objects;

/** Finds the user's source line that called into the DSL, so errors and plans can point at it. */
public final class CallSite {

    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    private static final URL DSL = locationOf(CallSite.class);
    private static final URL RUNTIME = locationOf(Engine.class);

    private CallSite() {
    }

    /** {@code File.java:42} of the first caller outside the DSL and runtime libraries and the JDK. */
    public static String ofCaller() {
        return WALKER.walk(frames -> frames
                .filter(f -> !isInternal(f.getDeclaringClass()))
                .findFirst()
                .map(f -> (f.getFileName() != null ? f.getFileName() : f.getClassName()) + ":" + f.getLineNumber())
                .orElse("unknown"));
    }

    /** The class of the first caller outside the DSL and runtime libraries and the JDK, or null when there is none. */
    public static Class<?> callerClass() {
        return WALKER.walk(frames -> frames.map(StackWalker.StackFrame::getDeclaringClass).filter(c -> !isInternal(c)).findFirst()
                .orElse(null));
    }

    private static boolean isInternal(Class<?> type) {
        String name = type.getName();
        if (name.startsWith("java.") || name.startsWith("jdk.")) {
            return true;
        }
        if (!name.startsWith("air.dsl.") && !name.startsWith("air.runtime.")) {
            return false; // user code, even when shaded into one jar with the libraries
        }
        URL location = locationOf(type);
        return location != null && (Objects.equals(location, DSL) || Objects.equals(location, RUNTIME));
    }

    private static URL locationOf(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        return source != null ? source.getLocation() : null;
    }
}
