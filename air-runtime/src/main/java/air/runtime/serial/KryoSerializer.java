package air.runtime.serial;

import air.runtime.api.Serializer;
import air.wire.WireIn;
import air.wire.WireOut;
import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * The default {@link Serializer}: Kryo 5 with no class registration, so every value carries its
 * class name (the same bytes on every peer, whatever order classes were first met in), written as
 * one length-prefixed blob. Only classes on the {@link SerialAllowList} are read or written, and
 * no count read from the bytes (of a string, collection, map or array) may exceed the bytes left
 * ({@link BoundedInput}, {@link BoundedSizes}): bytes from another peer, a replica copy or a
 * checkpoint file cannot name arbitrary classes or ask for gigabytes. Kryo serializes records through their canonical constructor, enums by
 * ordinal, collections and maps element by element, other classes field by field (no constructor
 * needed); shared references are written twice and cyclic graphs are not supported (Kryo's
 * default). Kryo instances are not thread-safe: each thread (each tasklet) has its own.
 */
public final class KryoSerializer implements Serializer {

    /** One thread's Kryo and buffers. */
    private static final class State {
        final Kryo kryo = newKryo();
        final Output output = new Output(256, -1);
        final Input input = new BoundedInput();
    }

    private static final ThreadLocal<State> STATE = ThreadLocal.withInitial(State::new);

    static Kryo newKryo() {
        Kryo kryo = new Kryo(new AllowListClassResolver(), null);
        kryo.setRegistrationRequired(false);
        kryo.setReferences(false);
        kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader != null) {
            kryo.setClassLoader(loader);
        }
        BoundedSizes.install(kryo);
        return kryo;
    }

    @Override
    public String name() {
        return "kryo";
    }

    @Override
    public void write(Object value, WireOut out) {
        State s = STATE.get();
        s.output.reset();
        try {
            s.kryo.writeClassAndObject(s.output, value);
        } catch (KryoException | IllegalArgumentException e) {
            throw new IllegalArgumentException("kryo cannot encode a " + value.getClass().getName() + ": " + e.getMessage(), e);
        } finally {
            s.kryo.reset();
        }
        out.putBytes(s.output.getBuffer(), 0, s.output.position());
    }

    @Override
    public Object read(WireIn in) {
        byte[] bytes = in.getBytes();
        State s = STATE.get();
        s.input.setBuffer(bytes);
        try {
            Object value = s.kryo.readClassAndObject(s.input);
            if (s.input.position() != bytes.length) {
                throw in.malformed("kryo read " + s.input.position() + " of a value's " + bytes.length + " bytes");
            }
            return value;
        } catch (KryoException | IllegalArgumentException e) {
            throw in.malformed("kryo cannot decode a value: " + e.getMessage());
        } finally {
            s.kryo.reset();
            s.input.setBuffer(EMPTY);
        }
    }

    private static final byte[] EMPTY = new byte[0];
}
