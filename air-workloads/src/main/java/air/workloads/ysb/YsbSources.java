package air.workloads.ysb;

import air.runtime.source.GeneratorSource;
import java.util.Objects;

/** YSB-mem as a source of any AIR pipeline: the generator read in parallel by event index. */
public final class YsbSources {

    private YsbSources() {
    }

    /** The YSB-mem events {@code 0 .. n-1} of {@code generator} (YSB-SPEC section 5), split across source instances. */
    public static GeneratorSource<YsbEvent> mem(long n, YsbGenerator generator) {
        if (n < 0) {
            throw new IllegalArgumentException("YsbSources.mem(n, generator): n must be >= 0, was " + n);
        }
        Objects.requireNonNull(generator, "YsbSources.mem(n, generator): generator is null");
        return new GeneratorSource<>("ysb-mem", n, generator::event);
    }
}
