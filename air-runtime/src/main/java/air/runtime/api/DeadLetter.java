package air.runtime.api;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A record that could not be used, with where it came from and why: a line that did not parse, a
 * Kafka record its deserialiser refused. Written to the dead-letter sink of a
 * {@link BadRecordPolicy#deadLetter} policy instead of failing the job or being dropped.
 *
 * @param origin   where the record came from: {@code clicks.json:17}, {@code orders-3@1042}
 * @param operator the stage that refused it, with its call site
 * @param raw      the record's bytes as read (text sources: UTF-8)
 * @param error    the exception's class and message
 */
public record DeadLetter(String origin, String operator, byte[] raw, String error) {

    public DeadLetter {
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(raw, "raw");
        Objects.requireNonNull(error, "error");
    }

    /** The raw bytes as UTF-8 text. */
    public String rawText() {
        return new String(raw, StandardCharsets.UTF_8);
    }

    /** One line: origin, operator, error and the raw text, tab-separated, with tabs and line breaks in them escaped. */
    public String toLine() {
        return escape(origin) + '\t' + escape(operator) + '\t' + escape(error) + '\t' + escape(rawText());
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeadLetter d && origin.equals(d.origin) && operator.equals(d.operator)
                && Arrays.equals(raw, d.raw) && error.equals(d.error);
    }

    @Override
    public int hashCode() {
        return Objects.hash(origin, operator, Arrays.hashCode(raw), error);
    }

    @Override
    public String toString() {
        return "DeadLetter[" + toLine() + "]";
    }
}
