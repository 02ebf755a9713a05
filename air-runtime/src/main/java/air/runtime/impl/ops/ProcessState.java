package air.runtime.impl.ops;

import air.runtime.api.Codec;
import air.runtime.api.Codecs;
import air.runtime.api.ListState;
import air.runtime.api.MapState;
import air.runtime.api.StateDescriptor;
import air.runtime.api.ValueState;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The per-key state of one keyed process instance: for every key, one slot per declared state (a
 * value, an {@code ArrayList} or a {@code LinkedHashMap}) and the newest event time each slot was
 * written at. The views ({@link #view}) act on the current key, which the operator sets before
 * each call of the user's function. A slot with a time to live is invisible to handling at a time
 * {@code t >= written + ttl} and dropped once progress passes {@code written + ttl}; one expiry
 * entry per (key, slot) at most, moved forward when the slot was written again meanwhile. Reading
 * never drops anything, so which records see a slot does not depend on the order they arrive in;
 * only a record behind the progress already passed (a late one) may find a slot dropped that its
 * own time would still see.
 */
final class ProcessState {

    /** The state of one key: one slot per declared state. */
    private static final class Slots {
        final Object[] values;
        final long[] written;
        final boolean[] expiring;

        Slots(int n) {
            values = new Object[n];
            written = new long[n];
            expiring = new boolean[n];
            Arrays.fill(written, Long.MIN_VALUE);
        }

        boolean empty() {
            for (Object v : values) {
                if (v != null) {
                    return false;
                }
            }
            return true;
        }
    }

    /** When a slot with a time to live may be dropped. */
    private record Expiry(long at, Object key, int slot) { }

    private final OperatorInfo info;
    private final List<StateDescriptor<?>> descriptors;
    private final Map<String, Integer> byName = new HashMap<>();
    private final Object[] views;
    private final Map<Object, Slots> keys = new HashMap<>();
    private final PriorityQueue<Expiry> expiries = new PriorityQueue<>((a, b) -> Long.compare(a.at, b.at));
    private Object currentKey;
    private Slots current;
    private long currentTime = Long.MIN_VALUE;

    ProcessState(OperatorInfo info, List<StateDescriptor<?>> descriptors) {
        this.info = info;
        this.descriptors = List.copyOf(descriptors);
        this.views = new Object[descriptors.size()];
        for (int i = 0; i < descriptors.size(); i++) {
            byName.put(descriptors.get(i).name(), i);
            views[i] = switch (descriptors.get(i).kind()) {
                case VALUE -> new Value(i);
                case LIST -> new ListView(i);
                case MAP -> new MapView(i);
            };
        }
    }

    /** The user's function now handles {@code key} at event time {@code time} ({@code Long.MIN_VALUE}: none). */
    void enter(Object key, long time) {
        currentKey = key;
        current = keys.get(key);
        currentTime = time;
    }

    /** The view of {@code d} for the current key; {@code d} must have been declared. */
    @SuppressWarnings("unchecked")
    <S> S view(StateDescriptor<S> d) {
        Integer i = d == null ? null : byName.get(d.name());
        if (i == null || descriptors.get(i).kind() != d.kind()) {
            throw new IllegalArgumentException(info.name() + ": " + d + " was not declared; pass it to process(fn, states...) (declared: "
                    + descriptors + ")");
        }
        return (S) views[i];
    }

    /** The current key's slot {@code i}, or null when unset or past its time to live. */
    private Object read(int i) {
        if (current == null || current.values[i] == null) {
            return null;
        }
        long ttl = descriptors.get(i).ttlMs();
        if (ttl > 0 && currentTime != Long.MIN_VALUE && current.written[i] != Long.MIN_VALUE && currentTime - current.written[i] >= ttl) {
            return null; // invisible at this handling time; an earlier one may still see it, until expire drops it
        }
        return current.values[i];
    }

    /** The current key's slot {@code i}, created by {@code empty} when unset; marks it written now. */
    private Object writable(int i, Object empty) {
        Object v = read(i);
        if (v == null) {
            v = empty;
            put(i, v);
        } else {
            touch(i);
        }
        return v;
    }

    private void put(int i, Object value) {
        if (value == null) {
            if (current != null) {
                current.values[i] = null;
                if (current.empty()) {
                    keys.remove(currentKey);
                    current = null;
                }
            }
            return;
        }
        if (current == null) {
            current = new Slots(descriptors.size());
            keys.put(currentKey, current);
        }
        current.values[i] = value;
        touch(i);
    }

    private void touch(int i) {
        if (currentTime != Long.MIN_VALUE && currentTime > current.written[i]) {
            current.written[i] = currentTime;
        }
        long ttl = descriptors.get(i).ttlMs();
        if (ttl > 0 && !current.expiring[i] && current.written[i] != Long.MIN_VALUE) {
            current.expiring[i] = true;
            expiries.add(new Expiry(saturatedAdd(current.written[i], ttl), currentKey, i));
        }
    }

    /** Progress passed {@code completeBelow}: drops every slot no handling at a time {@code >= completeBelow} may see. */
    void expire(long completeBelow) {
        while (!expiries.isEmpty() && expiries.peek().at <= completeBelow) {
            Expiry e = expiries.poll();
            Slots s = keys.get(e.key);
            if (s == null || !s.expiring[e.slot]) {
                continue;
            }
            long at = saturatedAdd(s.written[e.slot], descriptors.get(e.slot).ttlMs());
            if (s.values[e.slot] != null && at > completeBelow) {
                expiries.add(new Expiry(at, e.key, e.slot)); // written again since: expires later
                continue;
            }
            s.values[e.slot] = null;
            s.expiring[e.slot] = false;
            if (s.empty()) {
                keys.remove(e.key);
            }
        }
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** Keys with some state. */
    int keyCount() {
        return keys.size();
    }

    /** Every key's slots: per slot a presence byte, its write time and its value through the descriptor's codecs. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    void snapshotTo(WireOut out, KeyHash keyKind) {
        out.putInt(descriptors.size());
        for (StateDescriptor<?> d : descriptors) {
            out.putString(d.name()).putByte(d.kind().ordinal());
        }
        out.putInt(keys.size());
        for (Map.Entry<Object, Slots> e : keys.entrySet()) {
            writeKeyOf(e.getKey(), out, keyKind);
            Slots s = e.getValue();
            for (int i = 0; i < descriptors.size(); i++) {
                StateDescriptor<?> d = descriptors.get(i);
                Object v = s.values[i];
                out.putByte(v == null ? 0 : 1);
                if (v == null) {
                    continue;
                }
                out.putLong(s.written[i]);
                Codec<Object> codec = Codecs.orSerialized((Codec<Object>) d.codec());
                switch (d.kind()) {
                    case VALUE -> codec.write(v, out);
                    case LIST -> {
                        List<Object> list = (List<Object>) v;
                        out.putInt(list.size());
                        for (Object x : list) {
                            codec.write(x, out);
                        }
                    }
                    case MAP -> {
                        Map<Object, Object> map = (Map<Object, Object>) v;
                        Codec<Object> keyCodec = Codecs.orSerialized((Codec<Object>) d.mapKeyCodec());
                        out.putInt(map.size());
                        for (Map.Entry<Object, Object> x : map.entrySet()) {
                            keyCodec.write(x.getKey(), out);
                            codec.write(x.getValue(), out);
                        }
                    }
                }
            }
        }
    }

    /** A state like this one, empty: what a restore onto another layout reads an earlier instance's state into. */
    ProcessState emptyCopy() {
        return new ProcessState(info, descriptors);
    }

    /**
     * Restore onto another layout: moves the keys of {@code from} (an earlier instance's state)
     * that instance {@code instance} of {@code instances} owns now into this state, with their
     * pending expiries.
     */
    void takeOwned(ProcessState from, KeyHash keyKind, int instance, int instances) {
        for (Map.Entry<Object, Slots> e : from.keys.entrySet()) {
            if (keyKind.ownerOfKey(e.getKey(), instances) == instance) {
                keys.put(e.getKey(), e.getValue());
            }
        }
        for (Expiry x : from.expiries) {
            if (keyKind.ownerOfKey(x.key(), instances) == instance) {
                expiries.add(x);
            }
        }
        current = null;
        currentKey = null;
    }

    @SuppressWarnings("unchecked")
    void restoreFrom(WireIn in, KeyHash keyKind) {
        int n = in.getCount(2);
        if (n != descriptors.size()) {
            throw in.malformed(info.name() + ": checkpointed with " + n + " state(s), the job declares " + descriptors);
        }
        for (StateDescriptor<?> d : descriptors) {
            String name = in.getString();
            int kind = in.getByte();
            if (!name.equals(d.name()) || kind != d.kind().ordinal()) {
                throw in.malformed(info.name() + ": checkpointed state '" + name + "' does not match " + d + "; name a changed stage anew");
            }
        }
        keys.clear();
        expiries.clear();
        int count = in.getCount(1);
        for (int k = 0; k < count; k++) {
            Object key = readKey(in, keyKind);
            Slots s = new Slots(n);
            for (int i = 0; i < n; i++) {
                if (in.getByte() == 0) {
                    continue;
                }
                StateDescriptor<?> d = descriptors.get(i);
                s.written[i] = in.getLong();
                Codec<Object> codec = Codecs.orSerialized((Codec<Object>) d.codec());
                s.values[i] = switch (d.kind()) {
                    case VALUE -> codec.read(in);
                    case LIST -> {
                        int size = in.getCount(0);
                        List<Object> list = new ArrayList<>(size);
                        for (int j = 0; j < size; j++) {
                            list.add(codec.read(in));
                        }
                        yield list;
                    }
                    case MAP -> {
                        int size = in.getCount(0);
                        Codec<Object> keyCodec = Codecs.orSerialized((Codec<Object>) d.mapKeyCodec());
                        Map<Object, Object> map = new LinkedHashMap<>();
                        for (int j = 0; j < size; j++) {
                            Object mk = keyCodec.read(in);
                            map.put(mk, codec.read(in));
                        }
                        yield map;
                    }
                };
                if (d.ttlMs() > 0 && s.written[i] != Long.MIN_VALUE) {
                    s.expiring[i] = true;
                    expiries.add(new Expiry(saturatedAdd(s.written[i], d.ttlMs()), key, i));
                }
            }
            keys.put(key, s);
        }
        current = null;
        currentKey = null;
    }

    /** A key as snapshots hold it: a long for {@code keyByLong}, else tagged (String, Long, Integer, or serialized). */
    void writeKeyOf(Object key, WireOut out, KeyHash keyKind) {
        if (keyKind.longKeys()) {
            out.putLong((Long) key);
        } else {
            ShuffleItemCodec.writeKey(info, key, out);
        }
    }

    static Object readKey(WireIn in, KeyHash keyKind) {
        return keyKind.longKeys() ? (Object) in.getLong() : ShuffleItemCodec.readKey(in);
    }

    /** A value slot of the current key. */
    private final class Value implements ValueState<Object> {
        private final int slot;

        Value(int slot) {
            this.slot = slot;
        }

        @Override
        public Object value() {
            return read(slot);
        }

        @Override
        public void update(Object value) {
            put(slot, value);
        }

        @Override
        public void clear() {
            put(slot, null);
        }
    }

    /** A list slot of the current key. */
    private final class ListView implements ListState<Object> {
        private final int slot;

        ListView(int slot) {
            this.slot = slot;
        }

        @SuppressWarnings("unchecked")
        @Override
        public List<Object> get() {
            Object v = read(slot);
            return v == null ? List.of() : Collections.unmodifiableList((List<Object>) v);
        }

        @SuppressWarnings("unchecked")
        @Override
        public void add(Object element) {
            ((List<Object>) writable(slot, new ArrayList<>())).add(element);
        }

        @Override
        public void update(List<?> elements) {
            put(slot, elements == null || elements.isEmpty() ? null : new ArrayList<>(elements));
        }

        @Override
        public void clear() {
            put(slot, null);
        }
    }

    /** A map slot of the current key. */
    private final class MapView implements MapState<Object, Object> {
        private final int slot;

        MapView(int slot) {
            this.slot = slot;
        }

        @SuppressWarnings("unchecked")
        private Map<Object, Object> map() {
            return (Map<Object, Object>) read(slot);
        }

        @Override
        public Object get(Object mapKey) {
            Map<Object, Object> m = map();
            return m == null ? null : m.get(mapKey);
        }

        @SuppressWarnings("unchecked")
        @Override
        public void put(Object mapKey, Object value) {
            if (value == null) {
                remove(mapKey);
                return;
            }
            ((Map<Object, Object>) writable(slot, new LinkedHashMap<>())).put(mapKey, value);
        }

        @Override
        public void remove(Object mapKey) {
            Map<Object, Object> m = map();
            if (m != null && m.remove(mapKey) != null) {
                if (m.isEmpty()) {
                    ProcessState.this.put(slot, null);
                } else {
                    touch(slot);
                }
            }
        }

        @Override
        public boolean contains(Object mapKey) {
            Map<Object, Object> m = map();
            return m != null && m.containsKey(mapKey);
        }

        @Override
        public Map<Object, Object> entries() {
            Map<Object, Object> m = map();
            return m == null ? Map.of() : Collections.unmodifiableMap(m);
        }

        @Override
        public boolean isEmpty() {
            Map<Object, Object> m = map();
            return m == null || m.isEmpty();
        }

        @Override
        public void clear() {
            ProcessState.this.put(slot, null);
        }
    }
}
