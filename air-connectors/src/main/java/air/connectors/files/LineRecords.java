package air.connectors.files;

import air.runtime.source.split.SplitContext;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * The two steps from a line's bytes to a record that every line reader shares (files, sockets):
 * strict UTF-8, then the format's decoder; a line that fails either goes to the source's
 * bad-record policy with its origin and its bytes, and the step answers null. The origin is asked
 * for only then: naming every line ({@code file:line}) would cost a string per line read.
 */
public final class LineRecords {

    /** The error of a line that is not UTF-8. */
    public static final String NOT_UTF8 = "not UTF-8";

    private LineRecords() {
    }

    /** The line {@code a[from, from + length)} as text, or null when it is not UTF-8 (refused as a bad record). */
    public static String text(byte[] a, int from, int length, CharsetDecoder utf8, Supplier<String> origin, SplitContext context) {
        try {
            return utf8.decode(ByteBuffer.wrap(a, from, length)).toString();
        } catch (CharacterCodingException e) {
            context.badRecord(origin.get(), Arrays.copyOfRange(a, from, from + length), new IllegalArgumentException(NOT_UTF8, e));
            return null;
        }
    }

    /** {@code text} decoded, or null when the decoder throws or gives null (refused as a bad record with the line's bytes). */
    public static <T> T record(String text, LineFormat.Decoder<T> decoder, byte[] a, int from, int length, Supplier<String> origin,
                               SplitContext context) {
        try {
            T record = decoder.decode(text);
            if (record == null) {
                throw new IllegalArgumentException("the format decoded it to null");
            }
            return record;
        } catch (Exception e) {
            context.badRecord(origin.get(), Arrays.copyOfRange(a, from, from + length), e);
            return null;
        }
    }
}
