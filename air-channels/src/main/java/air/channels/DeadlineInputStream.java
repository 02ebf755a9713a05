package air.channels;

import java.io.FilterInputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * A socket's input bounded by one deadline for a whole exchange (a greeting), not per read: each
 * read waits at most until the deadline, so a client that drip-feeds a byte just inside a per-read
 * timeout cannot hold a single-threaded acceptor for longer than the exchange's budget. Past the
 * deadline every read throws {@link SocketTimeoutException}. The socket's read timeout is left
 * changed: the caller sets it again for what follows.
 */
public final class DeadlineInputStream extends FilterInputStream {

    private final Socket socket;
    private final long startNanos;
    private final long budgetNanos;
    private final long budgetMs;

    public DeadlineInputStream(Socket socket, long budgetMs) throws IOException {
        super(socket.getInputStream());
        this.socket = socket;
        this.budgetMs = budgetMs;
        this.startNanos = System.nanoTime();
        this.budgetNanos = TimeUnit.MILLISECONDS.toNanos(budgetMs); // saturates: a huge budget never wraps
    }

    private void armForTheRest() throws IOException {
        long leftMs = TimeUnit.NANOSECONDS.toMillis(budgetNanos - (System.nanoTime() - startNanos));
        if (leftMs <= 0) {
            throw new SocketTimeoutException("the exchange took longer than " + budgetMs + " ms");
        }
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, leftMs));
    }

    @Override
    public int read() throws IOException {
        armForTheRest();
        return super.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        armForTheRest();
        return super.read(b, off, len);
    }

    @Override
    public long skip(long n) throws IOException {
        armForTheRest();
        return super.skip(n);
    }
}
