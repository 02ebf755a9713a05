package air.runtime.api;

/** Where a source reader puts the records it reads. Called on the reader's own worker thread. */
public interface Emitter<T> {
    void emit(T item);
}
