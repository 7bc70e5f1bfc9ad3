package io.github.sparkperceptron.internal.io;

import java.io.Serializable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * A bad line or row found by a reader's check pass on an executor, sent to the driver as data:
 * where (a file and the byte offset of a text line, or a Parquet row's index) and why.
 */
final class Problem implements Serializable {
  private static final long serialVersionUID = 1L;

  final String file;
  /** Byte offset of the line's start (text formats) or 0-based row index (Parquet). */
  final long position;
  final boolean isRow;
  final String reason;

  private Problem(String file, long position, boolean isRow, String reason) {
    this.file = file;
    this.position = position;
    this.isRow = isRow;
    this.reason = reason;
  }

  static Problem atLine(String file, long byteOffset, String reason) {
    return new Problem(file, byteOffset, false, reason);
  }

  static Problem atRow(String file, long rowIndex, String reason) {
    return new Problem(file, rowIndex, true, reason);
  }

  /** "file:line" for text, "file, row N" (1-based) for Parquet; counting lines reads the file. */
  String place(Configuration conf) {
    if (isRow) {
      return displayName(file) + ", row " + (position + 1);
    }
    return InputPaths.place(conf, file, position);
  }

  /** The message of the exception a job prints: place, reason, and what the data were for. */
  BadInputException toException(Configuration conf, String suffix) {
    return new BadInputException(place(conf) + ": " + reason + suffix);
  }

  /**
   * Whether this problem comes before {@code other} in file order (path, then position): the one
   * to report when several partitions found one, since Spark does not scan files in path order.
   */
  boolean isBefore(Problem other) {
    int byFile = file.compareTo(other.file);
    return byFile != 0 ? byFile < 0 : position < other.position;
  }

  /** The earlier of two problems, either of which may be {@code null}. */
  static Problem earlier(Problem a, Problem b) {
    if (a == null) {
      return b;
    }
    return b == null || a.isBefore(b) ? a : b;
  }

  static String displayName(String file) {
    return file.startsWith("file:") ? new Path(file).toUri().getPath() : file;
  }
}
