package air.runtime.serial;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.util.DefaultClassResolver;

/**
 * Kryo's class resolver with the {@link SerialAllowList}: a class Kryo meets for the first time on
 * this thread — named in bytes it reads (looked up, not initialised), or the class of a value it
 * writes — is checked before Kryo makes a serializer for it or an object of it; one not on the list
 * fails the read (the payload is malformed) or the write (the job learns at its first such value,
 * on the sending peer, rather than at a receiver). A class that passed is registered and not checked
 * again: the per-value path is Kryo's own map lookup.
 */
final class AllowListClassResolver extends DefaultClassResolver {

    @Override
    @SuppressWarnings("rawtypes") // Kryo's signature
    public Registration registerImplicit(Class type) {
        if (!SerialAllowList.allows(type)) {
            throw new KryoException(SerialAllowList.refusal(type));
        }
        return super.registerImplicit(type);
    }
}
