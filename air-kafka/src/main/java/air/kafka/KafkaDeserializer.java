package air.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Turns a Kafka record's value into a record of the job. It may throw: the record is then a bad
 * record, handled by the source's {@link air.runtime.api.BadRecordPolicy} with its origin
 * ({@code topic-3@1042}) and its raw value. A record without a value (a tombstone) comes as
 * {@code null}. Called on the source instance's thread; one deserialiser serves every split.
 */
@FunctionalInterface
public interface KafkaDeserializer<T> {

    T deserialize(byte[] value) throws Exception;

    /** UTF-8 text; a value that is not UTF-8, or none, is a bad record. */
    static KafkaDeserializer<String> strings() {
        return value -> {
            requireValue(value);
            for (byte b : value) {
                if (b < 0) {
                    return decodeStrict(value);
                }
            }
            return new String(value, StandardCharsets.US_ASCII);
        };
    }

    /** The value's bytes as they are; a record without a value is a bad record. */
    static KafkaDeserializer<byte[]> bytes() {
        return value -> {
            requireValue(value);
            return value;
        };
    }

    private static void requireValue(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("the record has no value (a tombstone)");
        }
    }

    private static String decodeStrict(byte[] value) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(value)).toString();
    }
}
