package air.runtime.serial;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.util.DefaultClassResolver;

/**
 * Kryo's class resolver with the {@link SerialAllowList}: every class Kryo needs a registration
 * for — each class named in bytes it reads (looked up, not initialised), each class of a value it
 * writes — is checked before Kryo makes a serializer for it or an object of it; one not on the
 * list fails the read (the payload is malformed) or the write (the job learns at its first such
 * value, on the sending peer, rather than at a receiver).
 */
final class AllowListClassResolver extends DefaultClassResolver {

    @Override
    public Registration getRegistration(Class type) {
        if (type != null && !SerialAllowList.allows(type)) {
            throw new KryoException(SerialAllowList.refusal(type));
        }
        return super.getRegistration(type);
    }
}
