package air.runtime.impl.ops;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One split source instance's word to its chain about splits: which split the records being
 * emitted now come from (set by the reader before each split's read), and which splits it owns and
 * has not finished. Each split gets a small index, stable for the instance's life: the same id
 * always gets the same index, so that a restore (the reader forgets its splits and adopts them
 * again) keeps them. Per-split event time ({@link SplitTimestampOp}) keeps its state by that index.
 *
 * <p>Used on the source instance's thread only: the reader writes it, the chain inside the
 * reader's emit reads it. Splits come and go rarely; {@link #changes} tells a reader of it that
 * they did.
 */
public final class SplitCursor {

    private final List<String> ids = new ArrayList<>();
    private final Map<String, Integer> indexes = new HashMap<>();
    private boolean[] live = new boolean[4];
    private long[] polls = new long[4];
    private int current = -1;
    private int changes;

    /** Split {@code id} is owned and unfinished (new, or adopted again after a restore): its index. */
    public int add(String id) {
        Integer index = indexes.get(id);
        if (index == null) {
            index = ids.size();
            ids.add(id);
            indexes.put(id, index);
            if (index == live.length) {
                live = Arrays.copyOf(live, index * 2);
                polls = Arrays.copyOf(polls, index * 2);
            }
        }
        live[index] = true;
        changes++;
        return index;
    }

    /** The reader reads split {@code index} now: the records emitted from now on come from it. */
    public void reading(int index) {
        current = index;
        polls[index]++;
    }

    /** The split whose records are being emitted: -1 before the first. */
    public int current() {
        return current;
    }

    /** Split {@code index} is finished, or no longer owned (forgotten before a restore): it emits nothing more. */
    public void ended(int index) {
        if (live[index]) {
            live[index] = false;
            changes++;
        }
    }

    /** How many splits ever got an index. */
    public int size() {
        return ids.size();
    }

    /** The id of split {@code index}. */
    public String id(int index) {
        return ids.get(index);
    }

    /** How many times split {@code index} was read: one read since a split's last record, and it had its chance to give one. */
    public long polls(int index) {
        return polls[index];
    }

    /** Whether split {@code index} is owned and unfinished. */
    public boolean live(int index) {
        return live[index];
    }

    /** Grows whenever a split is added or ends: a reader that saw the same count has seen every change. */
    public int changes() {
        return changes;
    }
}
