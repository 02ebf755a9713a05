package air.connectors.files;

import air.runtime.api.Emitter;
import air.runtime.source.split.SplitContext;
import air.runtime.source.split.SplitReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Reads one file's lines from a byte offset on. Its position is the byte offset and the number
 * of the last line handled (emitted, passed over or refused), so a resumed reader knows both where
 * to read and what to call the next line. A line is complete at its {@code '\n'} ({@code "\r\n"}
 * too); at the end of a file that is no longer followed the last line needs none. A file that is
 * followed (a watched directory) keeps its reader open at its end and reads what is appended, a
 * half-written last line once its newline arrives. Lines are UTF-8; one that is not, or that is
 * longer than the bound, is a bad record.
 */
final class FileLineReader<T> implements SplitReader<T> {

    private final Path path;
    private final String name;
    private final LineFormat<T> format;
    private final SplitContext context;
    private final int maxLineBytes;
    private final boolean follow;
    private final FileChannel channel;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    private ByteBuffer buf;
    /** The file offset of the byte at {@code buf}'s position: everything before it was handled. */
    private long handledOffset;
    /** Lines handled: the number of the last one. */
    private long handledLines;
    /** The line being emitted, for {@link #origin}. */
    private long emittingLine;
    /** Where the next read from the file goes. */
    private long readOffset;
    private LineFormat.Decoder<T> decoder;
    /** Passing over the rest of a line that was too long. */
    private boolean skippingLongLine;

    FileLineReader(Path path, String name, LineFormat<T> format, long offset, long lines, int maxLineBytes, boolean follow,
                   SplitContext context) throws IOException {
        this.path = path;
        this.name = name;
        this.format = format;
        this.context = context;
        this.maxLineBytes = maxLineBytes;
        this.follow = follow;
        this.channel = FileChannel.open(path, StandardOpenOption.READ);
        this.buf = ByteBuffer.allocate(Math.min(64 * 1024, maxLineBytes + 1)).flip();
        this.handledOffset = offset;
        this.readOffset = offset;
        this.handledLines = lines;
        this.emittingLine = lines + 1;
        if (!format.hasHeader()) {
            decoder = decoderFor(null);
        } else if (lines > 0) {
            decoder = decoderFor(readHeader());
        }
    }

    private LineFormat.Decoder<T> decoderFor(String header) {
        try {
            return format.decoder(header);
        } catch (Exception e) {
            String why = "its header cannot be used: " + e;
            return line -> {
                throw new IllegalArgumentException(why, e);
            };
        }
    }

    /** The header line of a file resumed past it. */
    private String readHeader() throws IOException {
        ByteBuffer head = ByteBuffer.allocate(Math.min(maxLineBytes, (int) Math.min(Integer.MAX_VALUE - 8, channel.size())) + 1);
        channel.read(head, 0);
        head.flip();
        for (int i = 0; i < head.limit(); i++) {
            if (head.get(i) == '\n') {
                return new String(head.array(), 0, stripCr(head.array(), 0, i), StandardCharsets.UTF_8);
            }
        }
        return new String(head.array(), 0, head.limit(), StandardCharsets.UTF_8);
    }

    private static int stripCr(byte[] a, int from, int end) {
        return end > from && a[end - 1] == '\r' ? end - 1 - from : end - from;
    }

    @Override
    public int read(int max, Emitter<? super T> out) throws IOException {
        int emitted = 0;
        while (emitted < max) {
            int nl = newline();
            if (nl < 0) {
                if (!buf.hasRemaining() || buf.remaining() < buf.capacity()) {
                    if (fill() > 0) {
                        continue;
                    }
                } else if (growOrRefuse()) {
                    continue;
                }
                // nothing more in the file now
                if (follow || skippingLongLine && buf.hasRemaining()) {
                    return emitted;
                }
                if (buf.hasRemaining()) {
                    emitted += handle(buf.limit(), false, out); // the last line, without a newline
                    continue;
                }
                return emitted > 0 ? emitted : FINISHED;
            }
            emitted += handle(nl, true, out);
        }
        return emitted;
    }

    /** The index in {@code buf} of the next {@code '\n'}, or -1. */
    private int newline() {
        byte[] a = buf.array();
        for (int i = buf.position(), end = buf.limit(); i < end; i++) {
            if (a[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** Reads more of the file behind what {@code buf} holds; the number of bytes read (0 or less: none now). */
    private int fill() throws IOException {
        buf.compact();
        int n = channel.read(buf, readOffset);
        if (n > 0) {
            readOffset += n;
        }
        buf.flip();
        return n;
    }

    /** {@code buf} is full and holds no newline: grows it up to the line bound, or refuses the line. */
    private boolean growOrRefuse() {
        if (skippingLongLine) {
            handledOffset += buf.remaining();
            buf.position(buf.limit());
            return true;
        }
        if (buf.capacity() <= maxLineBytes) {
            ByteBuffer bigger = ByteBuffer.allocate((int) Math.min((long) maxLineBytes + 1, buf.capacity() * 2L));
            bigger.put(buf).flip();
            buf = bigger;
            return true;
        }
        handledLines++;
        byte[] start = Arrays.copyOfRange(buf.array(), buf.position(), buf.position() + Math.min(buf.remaining(), 1024));
        context.badRecord(name + ":" + handledLines, start,
                new IllegalArgumentException("a line longer than " + maxLineBytes + " bytes (maxLineBytes)"));
        skippingLongLine = true;
        handledOffset += buf.remaining();
        buf.position(buf.limit());
        return true;
    }

    /** Handles the line that ends at {@code end} (a newline there when {@code newline}); returns 1 when it emitted a record. */
    private int handle(int end, boolean newline, Emitter<? super T> out) {
        byte[] a = buf.array();
        int from = buf.position();
        int length = stripCr(a, from, end);
        int consumed = end - from + (newline ? 1 : 0);
        buf.position(from + consumed);
        handledOffset += consumed;
        if (skippingLongLine) {
            skippingLongLine = false; // the rest of the refused line
            return 0;
        }
        long line = ++handledLines;
        String text;
        try {
            text = utf8.decode(ByteBuffer.wrap(a, from, length)).toString();
        } catch (CharacterCodingException e) {
            context.badRecord(name + ":" + line, Arrays.copyOfRange(a, from, from + length), new IllegalArgumentException("not UTF-8", e));
            return 0;
        }
        if (decoder == null) { // the header
            decoder = decoderFor(text);
            return 0;
        }
        if (format.skipsBlankLines() && text.isBlank()) {
            return 0;
        }
        T record;
        try {
            record = decoder.decode(text);
            if (record == null) {
                throw new IllegalArgumentException("the format decoded it to null");
            }
        } catch (Exception e) {
            context.badRecord(name + ":" + line, Arrays.copyOfRange(a, from, from + length), e);
            return 0;
        }
        emittingLine = line;
        out.emit(record);
        return 1;
    }

    @Override
    public byte[] position() {
        return ByteBuffer.allocate(16).putLong(handledOffset).putLong(handledLines).array();
    }

    /** The byte offset in a position. */
    static long offsetOf(byte[] position) {
        return ByteBuffer.wrap(position).getLong(0);
    }

    /** The line count in a position. */
    static long linesOf(byte[] position) {
        return ByteBuffer.wrap(position).getLong(8);
    }

    @Override
    public String origin() {
        return name + ":" + emittingLine;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public String toString() {
        return "FileLineReader[" + path + " at " + handledOffset + "]";
    }
}
