package air.connectors.socket;

import air.connectors.files.LineFormat;
import air.runtime.api.BadRecordPolicy;
import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import air.runtime.source.split.SplitSource;
import java.time.Duration;
import java.util.Objects;

/**
 * Lines read from a TCP server, for demos and tests: made by {@link SocketSources}, set up by its
 * methods (each returns a new source), then given to {@code Pipeline.readFrom}. One instance (the
 * first) connects; the others end at once. When the connection cannot be made or is lost it
 * connects again after the reconnect delay, doubling up to 30 s, logging each attempt (unless
 * {@link #endAtDisconnect}). A line longer than the bound, or one that does not decode, is a bad
 * record under the source's policy. What was read is gone: a job with checkpoints or replicas
 * refuses this source.
 */
public final class SocketSource<T> implements SourceFactory<T> {

    /** The default bound on one line: 64 KiB. */
    public static final int DEFAULT_MAX_LINE_BYTES = 64 * 1024;

    private final String host;
    private final int port;
    private final LineFormat<T> format;
    private final Duration reconnectDelay;
    private final boolean endAtDisconnect;
    private final int maxLineBytes;
    private final BadRecordPolicy badRecords;

    SocketSource(String host, int port, LineFormat<T> format, Duration reconnectDelay, boolean endAtDisconnect, int maxLineBytes,
                 BadRecordPolicy badRecords) {
        this.host = host;
        this.port = port;
        this.format = format;
        this.reconnectDelay = reconnectDelay;
        this.endAtDisconnect = endAtDisconnect;
        this.maxLineBytes = maxLineBytes;
        this.badRecords = badRecords;
    }

    /** The first delay before connecting again (default 1 s), doubled at each failed attempt up to 30 s. */
    public SocketSource<T> reconnectDelay(Duration delay) {
        if (delay == null || delay.isNegative() || delay.isZero()) {
            throw new IllegalArgumentException(describe() + ".reconnectDelay(delay): must be positive, got " + delay);
        }
        return new SocketSource<>(host, port, format, delay, endAtDisconnect, maxLineBytes, badRecords);
    }

    /** Ends the source when the server closes the connection (or it cannot be made) instead of connecting again. */
    public SocketSource<T> endAtDisconnect() {
        return new SocketSource<>(host, port, format, reconnectDelay, true, maxLineBytes, badRecords);
    }

    /** The longest line read (default 64 KiB); a longer one is a bad record, its first KiB kept. */
    public SocketSource<T> maxLineBytes(int bytes) {
        if (bytes < 1 || bytes > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException(describe() + ".maxLineBytes(bytes): must be positive, got " + bytes);
        }
        return new SocketSource<>(host, port, format, reconnectDelay, endAtDisconnect, bytes, badRecords);
    }

    /** What happens to a line that does not decode, is not UTF-8 or is too long (default {@link BadRecordPolicy#fail()}). */
    public SocketSource<T> onBadRecord(BadRecordPolicy policy) {
        return new SocketSource<>(host, port, format, reconnectDelay, endAtDisconnect, maxLineBytes,
                Objects.requireNonNull(policy, "policy"));
    }

    private SocketSplits<T> splits() {
        return new SocketSplits<>(host, port, format, reconnectDelay, endAtDisconnect, maxLineBytes);
    }

    @Override
    public SourceReader<T> createReader(int instance, int parallelism) {
        return new SplitSource<>(splits(), badRecords).createReader(instance, parallelism);
    }

    @Override
    public String notReplayableBecause() {
        return splits().notReplayableBecause();
    }

    @Override
    public String describe() {
        return splits().describe();
    }
}
