/**
 * A file job end to end ({@code ./air clicks}): JSON-lines clicks from a directory, some of them
 * malformed, counted per page and window into rolling files, the bad lines into a dead-letter file,
 * and the committed output checked against the input.
 */
package air.samples.files;
