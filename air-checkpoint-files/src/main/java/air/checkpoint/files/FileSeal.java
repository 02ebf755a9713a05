package air.checkpoint.files;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.zip.CRC32C;
import javax.crypto.Mac;

/**
 * What ends a checkpoint file, computed as its bytes pass so that neither writing nor checking a
 * file holds it whole: the CRC32C of every byte before it (damage, a partial write) and, in a
 * signed file, then the HMAC-SHA256 of every byte before the MAC, the CRC included, under the
 * world's {@link CheckpointKey} (a file not written under this world's secret, or altered). A seal
 * without a MAC checks the CRC alone: a file without a MAC, or one read by a world without a key.
 */
final class FileSeal {

    private static final int CRC_BYTES = 8;

    private final CRC32C crc = new CRC32C();
    private final Mac mac;

    private FileSeal(Mac mac) {
        this.mac = mac;
    }

    /** The seal a file of {@code signed} kind is written with, or checked with under {@code key}. */
    static FileSeal of(boolean signed, CheckpointKey key) {
        return new FileSeal(signed && key.signs() ? key.newMac() : null);
    }

    /** How many bytes the seal of a file of {@code signed} kind takes at its end. */
    static int bytes(boolean signed) {
        return CRC_BYTES + (signed ? CheckpointKey.MAC_BYTES : 0);
    }

    void update(byte[] b, int off, int len) {
        crc.update(b, off, len);
        if (mac != null) {
            mac.update(b, off, len);
        }
    }

    /** The seal of the bytes given so far: the CRC, then the MAC when there is one. Ends this seal. */
    ByteBuffer end() {
        ByteBuffer b = ByteBuffer.allocate(bytes(mac != null)).putLong(crc.getValue());
        if (mac != null) {
            mac.update(b.array(), 0, CRC_BYTES);
            b.put(mac.doFinal());
        }
        return b.flip();
    }

    /**
     * Checks {@code trailer}, what the file holds after the bytes given so far, against this seal:
     * the CRC first (so that damage is named as such), then the MAC when this seal has one (a MAC
     * the file holds is skipped when the reader has no key). Ends this seal.
     */
    void check(byte[] trailer) throws CheckpointFile.DamagedFile {
        if (trailer.length < CRC_BYTES || ByteBuffer.wrap(trailer).getLong() != crc.getValue()) {
            throw new CheckpointFile.DamagedFile("checksum mismatch (damaged or partly written)");
        }
        if (mac == null) {
            return;
        }
        mac.update(trailer, 0, CRC_BYTES);
        byte[] expected = mac.doFinal();
        byte[] found = Arrays.copyOfRange(trailer, CRC_BYTES, trailer.length);
        if (!MessageDigest.isEqual(expected, found)) {
            throw new CheckpointFile.DamagedFile(CheckpointFile.NOT_OURS + ": its MAC does not match (a run under another secret wrote it, "
                    + "or it was changed since); resume it with the secret it was written under");
        }
    }
}
