package air.connectors.socket;

import air.connectors.files.LineFormat;
import air.runtime.source.split.SplitContext;
import air.runtime.source.split.SplitReader;
import air.runtime.source.split.Splits;
import java.time.Duration;
import java.util.List;

/** One split, the server's address, read by instance 0. */
final class SocketSplits<T> implements Splits<T> {

    private final String host;
    private final int port;
    private final LineFormat<T> format;
    private final Duration reconnectDelay;
    private final boolean endAtDisconnect;
    private final int maxLineBytes;

    SocketSplits(String host, int port, LineFormat<T> format, Duration reconnectDelay, boolean endAtDisconnect, int maxLineBytes) {
        this.host = host;
        this.port = port;
        this.format = format;
        this.reconnectDelay = reconnectDelay;
        this.endAtDisconnect = endAtDisconnect;
        this.maxLineBytes = maxLineBytes;
    }

    @Override
    public List<String> discover() {
        return List.of(host + ":" + port);
    }

    @Override
    public int ownerOf(String split, int parallelism) {
        return 0;
    }

    @Override
    public SplitReader<T> open(String split, byte[] position, SplitContext context) {
        return new SocketLineReader<>(host, port, format, reconnectDelay, endAtDisconnect, maxLineBytes, context);
    }

    @Override
    public Duration discoveryInterval() {
        return Duration.ZERO;
    }

    @Override
    public String notReplayableBecause() {
        return "a socket cannot send again what it sent before a failure (SocketSources is for demos and tests); read the data from "
                + "Kafka (KafkaSources) or files (FileSources), or run the job without checkpoints and replicas";
    }

    @Override
    public String describe() {
        return "socket(" + host + ":" + port + ", " + format.describe() + ")";
    }
}
