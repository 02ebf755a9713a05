/**
 * File sources: the lines of a file or a directory's files, decoded as text, JSON lines or CSV.
 *
 * <p>Each file is one split of the split source SPI ({@code air.runtime.source.split}): its owner
 * among the source instances is a hash of its name, the same on every peer, and its position is a
 * byte offset and a line number, so that checkpoints, replica copies and savepoints resumed on
 * another layout read every line exactly once, and a bad line's origin is {@code file:line}. By
 * default a file is read whole by one instance: line-based formats are cheap to parse and
 * directories usually hold many files. For a few large files a source reads in byte ranges
 * ({@code FileSource.byteRanges}), each a split whose reader takes the lines that begin in it, so
 * that no line is read twice or missed wherever a range ends.
 */
package air.connectors.files;
