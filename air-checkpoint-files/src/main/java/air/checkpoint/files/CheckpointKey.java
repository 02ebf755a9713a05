package air.checkpoint.files;

import air.channels.MeshAuth;
import air.channels.bootstrap.PeerEnvironment;
import java.security.GeneralSecurityException;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key that signs a world's checkpoint files: anyone who can write the checkpoint directory
 * could otherwise hand a restore (and Kryo) state of their making, as a CRC only catches accidents.
 * It is derived from the world's secret, the one its meshes prove ({@link MeshAuth#derive} of
 * {@value #PURPOSE}), never the mesh's key itself, read from the environment the way a peer reads it
 * when it joins ({@link PeerEnvironment#current}). There is none without a secret, and none when
 * the secret was made for one run alone ({@link MeshAuth#SECRET_PER_RUN}, what the launchers make
 * unless given one): the next run gets another, and would refuse every file signed under this one.
 */
final class CheckpointKey {

    /** What the key is derived for: a new version of the file's MAC gets a new purpose, and so a key of its own. */
    static final String PURPOSE = "air checkpoint file v1";
    /** The length of the MAC a signed file ends with. */
    static final int MAC_BYTES = 32;
    /** Files carry a CRC only. */
    static final CheckpointKey NONE = new CheckpointKey(null);

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointKey.class);
    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;

    private CheckpointKey(byte[] key) {
        this.key = key == null ? null : new SecretKeySpec(key, ALGORITHM);
    }

    /** The key of a world keyed by {@code auth}; {@link #NONE} when it has no secret. */
    static CheckpointKey of(MeshAuth auth) {
        return auth.enabled() ? new CheckpointKey(auth.derive(PURPOSE)) : NONE;
    }

    /** The key of the world {@code env} describes (the variables of {@link MeshAuth#fromEnvironment}). */
    static CheckpointKey fromEnvironment(Map<String, String> env) {
        MeshAuth auth = MeshAuth.fromEnvironment(env);
        if (auth.enabled() && "1".equals(env.get(MeshAuth.SECRET_PER_RUN))) {
            LOG.info("checkpoint files carry a CRC only, no MAC: this world's secret was made for this run alone ({}=1), and the next "
                    + "run could not check them; give every run the same {} to sign them (docs/operations.md, Security)",
                    MeshAuth.SECRET_PER_RUN, MeshAuth.SECRET);
            return NONE;
        }
        return of(auth);
    }

    /** The key of the world this process belongs to. */
    static CheckpointKey ofThisWorld() {
        return fromEnvironment(PeerEnvironment.current());
    }

    /** Whether files are signed (and must be, to be restored). */
    boolean signs() {
        return key != null;
    }

    /** A fresh MAC under this key; only when it {@link #signs}. */
    Mac newMac() {
        if (key == null) {
            throw new IllegalStateException("no key: the world has no secret");
        }
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is not available in this JDK", e);
        }
    }
}
