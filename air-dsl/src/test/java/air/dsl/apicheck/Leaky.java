package air.dsl.apicheck;

import air.dsl.apicheck.impl.Hidden;
import java.util.List;
import java.util.function.Supplier;

/** Every way a public class can expose an impl type, for {@code PublicApiTest}'s check of its own rule. */
public class Leaky implements Supplier<Hidden> {

    public Hidden field;
    protected List<Hidden> listed;
    private Hidden unseen;

    public Leaky(Hidden h) {
        this.unseen = h;
    }

    @Override
    public Hidden get() {
        return unseen;
    }

    public void take(List<? extends Hidden> hs) {
    }

    public <H extends Hidden> void bounded(H h) {
    }

    public void fail() throws Hidden {
    }

    Hidden packagePrivate() {
        return unseen;
    }
}
