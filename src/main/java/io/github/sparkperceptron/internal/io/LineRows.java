package io.github.sparkperceptron.internal.io;

import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.spark.sql.Row;
import scala.Tuple2;

/**
 * The rows of one split of a text input (LIBSVM or CSV), built lazily, one line at a time, so that
 * a partition is never held in memory twice. Blank lines are skipped, and so is every file's first
 * line (byte offset 0) when it is a header. The lines were checked by an earlier pass: a line
 * that no longer parses means the file changed between the two passes, which is an error.
 */
abstract class LineRows implements Iterator<Row> {
  private final Iterator<Tuple2<LongWritable, Text>> lines;
  private final boolean headers;
  private Row next;

  /**
   * @param lines (byte offset, line) records, as Hadoop's text input format reads them
   * @param headers whether the line at offset 0 of each file is a header to skip
   */
  LineRows(Iterator<Tuple2<LongWritable, Text>> lines, boolean headers) {
    this.lines = lines;
    this.headers = headers;
  }

  /** Parses a line into the reader's parser: {@code null} when it parsed, else why not. */
  abstract String parse(String line);

  /** Whether the line just parsed holds no example. */
  abstract boolean isBlank();

  /** The row of the line just parsed. */
  abstract Row row();

  private Row advance() {
    while (lines.hasNext()) {
      Tuple2<LongWritable, Text> line = lines.next();
      if (headers && line._1().get() == 0) {
        continue;
      }
      String text = line._2().toString();
      if (parse(text) != null) {
        throw new IllegalStateException("a line changed between two reads: " + text);
      }
      if (!isBlank()) {
        return row();
      }
    }
    return null;
  }

  @Override
  public boolean hasNext() {
    if (next == null) {
      next = advance();
    }
    return next != null;
  }

  @Override
  public Row next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    Row current = next;
    next = null;
    return current;
  }
}
