package air.dsl.impl;

/** Finds the user's source line that called into the DSL, so errors and plans can point at it. */
public final class CallSite {

    private static final StackWalker WALKER = StackWalker.getInstance();

    private CallSite() {
    }

    /** {@code File.java:42} of the first caller outside this library's DSL and runtime packages. */
    public static String ofCaller() {
        return WALKER.walk(frames -> frames
                .filter(f -> !isInternal(f.getClassName()))
                .findFirst()
                .map(f -> (f.getFileName() != null ? f.getFileName() : f.getClassName()) + ":" + f.getLineNumber())
                .orElse("unknown"));
    }

    private static boolean isInternal(String className) {
        return className.startsWith("air.dsl.") && !className.startsWith("air.dsl.ysb.")
                || className.startsWith("air.runtime.")
                || className.startsWith("java.");
    }
}
