package air.runtime.impl.exec;

import java.lang.management.ManagementFactory;

/**
 * HotSpot will not inline a method already compiled into a large body, so a fused chain whose
 * head got compiled on its own before the source loop stays a call per record and its records
 * escape to the heap. Forcing inlining of the operator classes makes the whole chain one loop.
 */
final class JitHint {

    static final String FLAG = "-XX:CompileCommand=inline,air.runtime.impl.ops.*::*";

    private JitHint() {
    }

    static boolean operatorsForceInlined() {
        try {
            return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                    .anyMatch(a -> a.startsWith("-XX:CompileCommand") && a.contains("air.runtime.impl.ops"));
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }
}
