package air.connectors.socket;

import air.connectors.files.LineFormat;
import air.connectors.files.LineRecords;
import air.runtime.api.Emitter;
import air.runtime.source.split.SplitContext;
import air.runtime.source.split.SplitReader;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads lines from one TCP connection without blocking the source's thread: connects, reads what
 * has arrived, emits the complete lines, and connects again after a delay (doubling up to 30 s)
 * when the connection cannot be made or is lost, unless told to end there.
 */
final class SocketLineReader<T> implements SplitReader<T> {

    private static final Logger LOG = LoggerFactory.getLogger(SocketLineReader.class);
    private static final long MAX_DELAY_NANOS = Duration.ofSeconds(30).toNanos();

    private final String host;
    private final int port;
    private final String name;
    private final LineFormat.Decoder<T> decoder;
    private final boolean skipsBlank;
    private final long firstDelayNanos;
    private final boolean endAtDisconnect;
    private final int maxLineBytes;
    private final SplitContext context;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    private final ByteBuffer buf;
    private SocketChannel channel;
    private boolean connected;
    private long delayNanos;
    private long nextAttemptNanos;
    private long lines;
    private long emittingLine;
    /** {@link #origin}, made once: asked for only when a line is refused. */
    private final Supplier<String> originOfLine = this::origin;
    private boolean skippingLongLine;
    private boolean finished;

    SocketLineReader(String host, int port, LineFormat<T> format, Duration reconnectDelay, boolean endAtDisconnect, int maxLineBytes,
                     SplitContext context) {
        this.host = host;
        this.port = port;
        this.name = host + ":" + port;
        LineFormat.Decoder<T> d;
        try {
            d = format.decoder(null);
        } catch (Exception e) {
            throw new IllegalArgumentException(name + ": " + format.describe() + " gives no decoder without a header: " + e, e);
        }
        this.decoder = d;
        this.skipsBlank = format.skipsBlankLines();
        this.firstDelayNanos = reconnectDelay.toNanos();
        this.delayNanos = firstDelayNanos;
        this.endAtDisconnect = endAtDisconnect;
        this.maxLineBytes = maxLineBytes;
        this.context = context;
        this.buf = ByteBuffer.allocate(maxLineBytes + 1).flip();
    }

    @Override
    public int read(int max, Emitter<? super T> out) throws IOException {
        if (finished) {
            return FINISHED;
        }
        if (!connected && !connect()) {
            return finished ? FINISHED : 0;
        }
        int emitted = emitLines(max, out);
        if (emitted > 0) {
            return emitted;
        }
        buf.compact();
        int n;
        try {
            n = channel.read(buf);
        } catch (IOException e) {
            n = -2;
            LOG.warn("{}: the connection broke: {}", name, e.toString());
        }
        buf.flip();
        if (n < 0) {
            disconnected(n == -1 ? "the server closed the connection" : "the connection broke");
            emitted = emitLines(max, out);
            if (emitted == 0 && buf.hasRemaining() && !skippingLongLine) { // a last line without its newline
                emitted = handle(buf.limit(), false, out);
            }
            return emitted > 0 || !finished ? emitted : FINISHED;
        }
        return emitLines(max, out);
    }

    /** Whether the connection is up; starts or finishes an attempt when its time has come. */
    private boolean connect() throws IOException {
        long now = System.nanoTime();
        if (channel == null) {
            if (now - nextAttemptNanos < 0) {
                return false;
            }
            channel = SocketChannel.open();
            channel.configureBlocking(false);
            try {
                channel.connect(new InetSocketAddress(host, port));
            } catch (IOException e) {
                failedAttempt(e);
                return false;
            }
        }
        try {
            if (!channel.finishConnect()) {
                return false;
            }
        } catch (IOException e) {
            failedAttempt(e);
            return false;
        }
        connected = true;
        delayNanos = firstDelayNanos;
        LOG.info("{}: connected", name);
        return true;
    }

    private void failedAttempt(IOException e) {
        closeChannel();
        if (endAtDisconnect) {
            LOG.warn("{}: cannot connect ({}); the source ends", name, e.toString());
            finished = true;
            return;
        }
        LOG.warn("{}: cannot connect ({}); trying again in {} ms", name, e.toString(), delayNanos / 1_000_000);
        nextAttemptNanos = System.nanoTime() + delayNanos;
        delayNanos = Math.min(MAX_DELAY_NANOS, delayNanos * 2);
    }

    private void disconnected(String why) {
        closeChannel();
        if (endAtDisconnect) {
            LOG.info("{}: {}; the source ends", name, why);
            finished = true;
        } else {
            LOG.warn("{}: {}; connecting again in {} ms", name, why, delayNanos / 1_000_000);
            nextAttemptNanos = System.nanoTime() + delayNanos;
        }
    }

    private void closeChannel() {
        connected = false;
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing only
            }
            channel = null;
        }
    }

    /** Emits up to {@code max} complete lines from {@code buf}; passes over a line longer than the bound. */
    private int emitLines(int max, Emitter<? super T> out) {
        int emitted = 0;
        while (emitted < max) {
            int nl = newline();
            if (nl < 0) {
                if (buf.remaining() > maxLineBytes) { // no newline within the bound
                    refuseLongLine();
                }
                return emitted;
            }
            emitted += handle(nl, true, out);
        }
        return emitted;
    }

    private int newline() {
        byte[] a = buf.array();
        for (int i = buf.position(), end = buf.limit(); i < end; i++) {
            if (a[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private void refuseLongLine() {
        if (!skippingLongLine) {
            lines++;
            emittingLine = lines;
            byte[] start = Arrays.copyOfRange(buf.array(), buf.position(), buf.position() + Math.min(buf.remaining(), 1024));
            context.badRecord(name + " line " + lines, start,
                    new IllegalArgumentException("a line longer than " + maxLineBytes + " bytes (maxLineBytes)"));
            skippingLongLine = true;
        }
        buf.position(buf.limit());
    }

    private int handle(int end, boolean newline, Emitter<? super T> out) {
        byte[] a = buf.array();
        int from = buf.position();
        int length = end > from && a[end - 1] == '\r' ? end - 1 - from : end - from;
        buf.position(end + (newline ? 1 : 0));
        if (skippingLongLine) {
            skippingLongLine = false;
            return 0;
        }
        long line = ++lines;
        emittingLine = line;
        String text = LineRecords.text(a, from, length, utf8, originOfLine, context);
        if (text == null || skipsBlank && text.isBlank()) {
            return 0;
        }
        T record = LineRecords.record(text, decoder, a, from, length, originOfLine, context);
        if (record == null) {
            return 0;
        }
        emittingLine = line;
        out.emit(record);
        return 1;
    }

    @Override
    public byte[] position() {
        return ByteBuffer.allocate(8).putLong(lines).array();
    }

    @Override
    public String origin() {
        return name + " line " + emittingLine;
    }

    @Override
    public void close() {
        closeChannel();
    }
}
