package air.connectors.socket;

import air.connectors.files.LineFormat;
import air.connectors.files.LineFormats;
import air.runtime.api.BadRecordPolicy;
import java.time.Duration;
import java.util.Objects;

/** Where socket sources begin: {@code p.readFrom(SocketSources.lines("localhost", 9999))}, as Flink's and Jet's demos read {@code nc -lk}. */
public final class SocketSources {

    private SocketSources() {
    }

    /** The lines a TCP server at {@code host:port} sends, as strings. */
    public static SocketSource<String> lines(String host, int port) {
        return of(host, port, LineFormats.lines());
    }

    /** The lines a TCP server at {@code host:port} sends, decoded by {@code format} ({@link LineFormats#jsonLines}, ...). */
    public static <T> SocketSource<T> of(String host, int port, LineFormat<T> format) {
        Objects.requireNonNull(host, "SocketSources: host is null");
        Objects.requireNonNull(format, "SocketSources: format is null");
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("SocketSources: port must be 1..65535, got " + port);
        }
        if (format.hasHeader()) {
            throw new IllegalArgumentException("SocketSources: " + format.describe() + " needs a header line per file; a socket has none "
                    + "(use LineFormats.csvWithColumns)");
        }
        return new SocketSource<>(host, port, format, Duration.ofSeconds(1), false, SocketSource.DEFAULT_MAX_LINE_BYTES,
                BadRecordPolicy.fail());
    }
}
