package air.runtime.impl.ops;

/** An operator instance that counts what it received, read by meters from another thread. */
public interface Counted {
    long received();
}
