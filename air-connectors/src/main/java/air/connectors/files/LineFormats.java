package air.connectors.files;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The built-in formats. JSON lines and CSV go through Jackson (databind and its CSV data format):
 * one library maps both onto the user's classes and records the same way (field names, types,
 * {@code @JsonProperty}), it is the most widely kept JSON library on the JVM, and its CSV reader
 * handles quoting and escapes. A CSV record must fit on one line (no line breaks inside quotes):
 * files are split and resumed at line boundaries.
 */
public final class LineFormats {

    private LineFormats() {
    }

    /** Each line as a {@code String}, blank ones included. */
    public static LineFormat<String> lines() {
        return new LineFormat<>() {
            @Override
            public boolean skipsBlankLines() {
                return false;
            }

            @Override
            public Decoder<String> decoder(String header) {
                return line -> line;
            }

            @Override
            public String describe() {
                return "lines";
            }
        };
    }

    /** One JSON object per line, mapped onto {@code type} by a default {@link ObjectMapper} (unknown fields are an error). */
    public static <T> LineFormat<T> jsonLines(Class<T> type) {
        return jsonLines(type, new ObjectMapper());
    }

    /**
     * One JSON document per line, mapped onto {@code type} by {@code mapper} (its settings decide what
     * is an error; anything after the document on its line always is: two records run together must
     * not pass as the first).
     */
    public static <T> LineFormat<T> jsonLines(Class<T> type, ObjectMapper mapper) {
        Objects.requireNonNull(type, "LineFormats.jsonLines(type, mapper): type is null");
        Objects.requireNonNull(mapper, "LineFormats.jsonLines(type, mapper): mapper is null");
        ObjectReader reader = mapper.readerFor(type).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        return new LineFormat<>() {
            @Override
            public Decoder<T> decoder(String header) {
                return reader::readValue;
            }

            @Override
            public String describe() {
                return "json(" + type.getSimpleName() + ")";
            }
        };
    }

    /** Comma-separated values with a header line in every file naming the columns, mapped onto {@code type} by column name. */
    public static <T> LineFormat<T> csv(Class<T> type) {
        return csv(type, ',');
    }

    /** {@link #csv(Class)} with another separator ({@code ';'}, {@code '\t'}, ...). */
    public static <T> LineFormat<T> csv(Class<T> type, char separator) {
        Objects.requireNonNull(type, "LineFormats.csv(type, separator): type is null");
        CsvMapper mapper = new CsvMapper();
        return new CsvFormat<>(type, mapper, separator, null);
    }

    /** Headerless comma-separated values whose columns are {@code columns}, in order, mapped onto {@code type}. */
    public static <T> LineFormat<T> csvWithColumns(Class<T> type, String... columns) {
        Objects.requireNonNull(type, "LineFormats.csvWithColumns(type, columns): type is null");
        if (columns.length == 0) {
            throw new IllegalArgumentException("LineFormats.csvWithColumns(type, columns): no columns named");
        }
        return new CsvFormat<>(type, new CsvMapper(), ',', List.of(columns));
    }

    /** CSV through Jackson: a schema per file from its header, or the columns given. */
    private record CsvFormat<T>(Class<T> type, CsvMapper mapper, char separator, List<String> columns) implements LineFormat<T> {

        @Override
        public boolean hasHeader() {
            return columns == null;
        }

        @Override
        public Decoder<T> decoder(String header) throws Exception {
            List<String> names = columns;
            if (names == null) {
                CsvSchema raw = CsvSchema.emptySchema().withColumnSeparator(separator);
                String[] fields = mapper.readerFor(String[].class).with(raw).readValue(header);
                if (fields.length == 0 || Arrays.stream(fields).anyMatch(String::isBlank)) {
                    throw new IllegalArgumentException("the header line names a blank column: '" + header + "'");
                }
                names = List.of(fields);
            }
            CsvSchema.Builder schema = CsvSchema.builder().setColumnSeparator(separator).setStrictHeaders(false);
            for (String name : names) {
                schema.addColumn(name.trim());
            }
            ObjectReader reader = mapper.readerFor(type).with(schema.build());
            int expected = names.size();
            ObjectReader fieldsReader = mapper.readerFor(String[].class).with(CsvSchema.emptySchema().withColumnSeparator(separator));
            return line -> {
                String[] fields = fieldsReader.readValue(line);
                if (fields.length != expected) {
                    throw new IllegalArgumentException(fields.length + " columns where the header names " + expected);
                }
                return reader.readValue(line);
            };
        }

        @Override
        public String describe() {
            return "csv(" + type.getSimpleName() + ")";
        }
    }
}
