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
import java.util.function.Supplier;

/**
 * Reads one file's lines from a byte offset on. Its position is the byte offset and the number
 * of the last line handled (emitted, passed over or refused), so a resumed reader knows both where
 * to read and what to call the next line, and whether that offset is inside a refused line. A line
 * is complete at its {@code '\n'} ({@code "\r\n"} too); at the end of a file that is no longer
 * followed the last line needs none. A file that is followed (a watched directory) keeps its
 * reader open at its end and reads what is appended, a half-written last line once its newline
 * arrives. Lines are UTF-8; one that is not, or that is longer than the bound (its line break not
 * counted), is a bad record.
 *
 * <p>A reader of a byte range reads the lines that begin in it (the last may end past it) and
 * begins, when the range is not the file's first, inside the line before its own, passing over it.
 * Its lines cannot be numbered without reading the file before them, so a bad line there is named
 * by the offset it begins at, {@code file@offset}, not {@code file:line}.
 */
final class FileLineReader<T> implements SplitReader<T> {

    private static final String NOT_UTF8 = LineRecords.NOT_UTF8;

    private final Path path;
    private final String name;
    /** The offset of the first line that is not this reader's (the next range's), or {@link Long#MAX_VALUE}. */
    private final long rangeEnd;
    /** Whether its lines are named {@code file:line} (it began at the file's start) or {@code file@offset}. */
    private final boolean numbersLines;
    private final LineFormat<T> format;
    private final SplitContext context;
    private final int maxLineBytes;
    /** The most {@code buf} holds: a line of {@code maxLineBytes} and its {@code "\r\n"}. */
    private final int bufferBound;
    private final boolean follow;
    private final FileChannel channel;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    private ByteBuffer buf;
    /** The file offset of the byte at {@code buf}'s position: everything before it was handled. */
    private long handledOffset;
    /** Lines handled: the number of the last one. */
    private long handledLines;
    /** The line being emitted, and the offset it begins at, for {@link #origin}. */
    private long emittingLine;
    private long emittingOffset;
    /** Where the next read from the file goes. */
    private long readOffset;
    private LineFormat.Decoder<T> decoder;
    /** Passing over the rest of a line that was too long. */
    private boolean skippingLongLine;
    /** {@link #origin}, made once: asked for only when a line is refused. */
    private final Supplier<String> originOfLine = this::origin;

    FileLineReader(Path path, FileSplit split, LineFormat<T> format, long offset, long lines, boolean skipping, int maxLineBytes,
                   boolean follow, SplitContext context) throws IOException {
        this.path = path;
        this.name = split.file();
        this.rangeEnd = split.end();
        this.numbersLines = split.numbersLines();
        this.format = format;
        this.context = context;
        this.maxLineBytes = maxLineBytes;
        this.bufferBound = maxLineBytes + 2;
        this.follow = follow;
        this.channel = FileChannel.open(path, StandardOpenOption.READ);
        this.buf = ByteBuffer.allocate(Math.min(64 * 1024, bufferBound)).flip();
        this.handledOffset = offset;
        this.readOffset = offset;
        this.handledLines = lines;
        this.emittingLine = lines + 1;
        this.emittingOffset = offset;
        this.skippingLongLine = skipping;
        if (!format.hasHeader()) {
            decoder = decoderFor(null);
        } else if (lines > 0 || offset > 0) { // resumed past the header, or a range after the file's first
            decoder = resumedHeader();
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

    /** Every line of a file whose header cannot be used is a bad record, saying why. */
    private LineFormat.Decoder<T> unusableHeader(String why) {
        return line -> {
            throw new IllegalArgumentException("its header cannot be used: " + why);
        };
    }

    /** The header line (the line being handled while there is no decoder yet) is refused: so are the lines after it. */
    private void refuseHeader(String why) {
        if (decoder == null) {
            decoder = unusableHeader(why);
        }
    }

    /** The decoder of a file resumed past its header: the header read again, and refused as it was when first read. */
    private LineFormat.Decoder<T> resumedHeader() throws IOException {
        ByteBuffer head = ByteBuffer.allocate((int) Math.min(bufferBound, channel.size()));
        while (head.hasRemaining() && channel.read(head, head.position()) > 0) {
            // a file read whole up to the bound
        }
        head.flip();
        byte[] a = head.array();
        int end = head.limit();
        for (int i = 0; i < head.limit(); i++) {
            if (a[i] == '\n') {
                end = i;
                break;
            }
        }
        int length = stripCr(a, 0, end);
        if (length > maxLineBytes) {
            return unusableHeader(tooLong());
        }
        try {
            return decoderFor(utf8.decode(ByteBuffer.wrap(a, 0, length)).toString());
        } catch (CharacterCodingException e) {
            return unusableHeader(NOT_UTF8);
        }
    }

    private String tooLong() {
        return "a line longer than " + maxLineBytes + " bytes (maxLineBytes)";
    }

    private static int stripCr(byte[] a, int from, int end) {
        return end > from && a[end - 1] == '\r' ? end - 1 - from : end - from;
    }

    @Override
    public int read(int max, Emitter<? super T> out) throws IOException {
        int emitted = 0;
        while (emitted < max) {
            if (handledOffset >= rangeEnd && !skippingLongLine) {
                return emitted > 0 ? emitted : FINISHED; // the next line is the next range's
            }
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
                if (follow) {
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
        if (buf.capacity() < bufferBound) {
            ByteBuffer bigger = ByteBuffer.allocate((int) Math.min(bufferBound, buf.capacity() * 2L));
            bigger.put(buf).flip();
            buf = bigger;
            return true;
        }
        refuseHeader(tooLong());
        refuseTooLong(++handledLines, handledOffset, buf.array(), buf.position(), buf.remaining());
        skippingLongLine = true;
        handledOffset += buf.remaining();
        buf.position(buf.limit());
        return true;
    }

    /** Refuses line {@code line}, beginning at {@code offset}, longer than the bound, keeping its first KiB. */
    private void refuseTooLong(long line, long offset, byte[] a, int from, int length) {
        emittingLine = line; // the record at fault, for messages
        emittingOffset = offset;
        context.badRecord(origin(), Arrays.copyOfRange(a, from, from + Math.min(length, 1024)), new IllegalArgumentException(tooLong()));
    }

    /** Handles the line that ends at {@code end} (a newline there when {@code newline}); returns 1 when it emitted a record. */
    private int handle(int end, boolean newline, Emitter<? super T> out) {
        byte[] a = buf.array();
        int from = buf.position();
        int length = stripCr(a, from, end);
        int consumed = end - from + (newline ? 1 : 0);
        buf.position(from + consumed);
        long offset = handledOffset;
        handledOffset += consumed;
        if (skippingLongLine) {
            skippingLongLine = false; // the rest of the refused line
            return 0;
        }
        long line = ++handledLines;
        if (length > maxLineBytes) { // the buffer holds one byte more than the bound, for a "\r" that may not come
            refuseHeader(tooLong());
            refuseTooLong(line, offset, a, from, length);
            return 0;
        }
        emittingLine = line; // the record at fault, for messages, until the next
        emittingOffset = offset;
        String text = LineRecords.text(a, from, length, utf8, originOfLine, context);
        if (text == null) {
            refuseHeader(NOT_UTF8);
            return 0;
        }
        if (decoder == null) { // the header
            decoder = decoderFor(text);
            return 0;
        }
        if (format.skipsBlankLines() && text.isBlank()) {
            return 0;
        }
        T record = LineRecords.record(text, decoder, a, from, length, originOfLine, context);
        if (record == null) {
            return 0;
        }
        emittingLine = line;
        emittingOffset = offset;
        out.emit(record);
        return 1;
    }

    /**
     * The byte offset, the line count and whether the reader is passing over the rest of a refused
     * line (a followed file stops in one while it is being written): a reader resumed there must
     * pass over the rest too, not take it for a line.
     */
    @Override
    public byte[] position() {
        return ByteBuffer.allocate(17).putLong(handledOffset).putLong(handledLines).put((byte) (skippingLongLine ? 1 : 0)).array();
    }

    /** The byte offset in a position. */
    static long offsetOf(byte[] position) {
        return ByteBuffer.wrap(position).getLong(0);
    }

    /** The line count in a position. */
    static long linesOf(byte[] position) {
        return ByteBuffer.wrap(position).getLong(8);
    }

    /** Whether a position is inside a refused line, passing over its rest (positions of 16 bytes never are). */
    static boolean skippingOf(byte[] position) {
        return position.length > 16 && position[16] == 1;
    }

    @Override
    public String origin() {
        return numbersLines ? name + ":" + emittingLine : name + "@" + emittingOffset;
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
