package air.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Lines from a socket that the other side does not get to size: each line is at most
 * {@code maxBytes} (UTF-8, without its line break), a longer one is a {@link TooLong} and the
 * caller drops the connection, so a stranger cannot make the launcher buffer without end. A read
 * may carry a deadline for the whole line (a greeting), not per read, so a drip-fed line cannot
 * hold a slot past it.
 */
final class LineReader {

    /** A line longer than the reader allows. */
    static final class TooLong extends IOException {
        TooLong(int maxBytes) {
            super("a line longer than " + maxBytes + " bytes");
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final int maxBytes;
    private final byte[] buffer = new byte[8192];
    private int position;
    private int limit;
    private byte[] line = new byte[256];

    LineReader(Socket socket, int maxBytes) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.maxBytes = maxBytes;
    }

    /**
     * The next line without its {@code \n} (or {@code \r\n}); the unterminated rest at the end of the
     * stream; null at the end of the stream. {@code deadlineNanos} ({@link System#nanoTime()}; 0:
     * none) bounds the wait for the whole line: past it, a {@link SocketTimeoutException}.
     */
    String readLine(long deadlineNanos) throws IOException {
        int length = 0;
        while (true) {
            if (position == limit && !fill(deadlineNanos)) {
                return length == 0 ? null : text(length);
            }
            byte b = buffer[position++];
            if (b == '\n') {
                return text(length);
            }
            if (length == maxBytes) {
                throw new TooLong(maxBytes);
            }
            if (length == line.length) {
                line = Arrays.copyOf(line, Math.min(maxBytes, line.length * 2));
            }
            line[length++] = b;
        }
    }

    private String text(int length) {
        int end = length > 0 && line[length - 1] == '\r' ? length - 1 : length;
        return new String(line, 0, end, StandardCharsets.UTF_8);
    }

    private boolean fill(long deadlineNanos) throws IOException {
        if (deadlineNanos == 0) {
            socket.setSoTimeout(0);
        } else {
            long leftMs = (deadlineNanos - System.nanoTime()) / 1_000_000;
            if (leftMs <= 0) {
                throw new SocketTimeoutException("no whole line before the deadline");
            }
            socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, leftMs));
        }
        int n = in.read(buffer);
        if (n < 0) {
            return false;
        }
        position = 0;
        limit = n;
        return true;
    }
}
