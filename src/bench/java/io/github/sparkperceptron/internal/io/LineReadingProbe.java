package io.github.sparkperceptron.internal.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.LineRecordReader;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;

/**
 * One pass over a file's lines with {@link SplitLines} or with Hadoop's {@link LineRecordReader}
 * (what it replaced), for the benchmarks' {@code lines} section: {@code SplitLines} is the
 * reader's own, so the probe lives in its package.
 */
public final class LineReadingProbe {
  private LineReadingProbe() {
  }

  /** What a pass saw: lines, their bytes and a sum of their first bytes (so none is skipped). */
  public record Pass(long nanos, long lines, long bytes, long check) {
  }

  /** Reads every line of {@code file} (one split) with Hadoop's reader or, if not, ours. */
  public static Pass pass(boolean hadoop, Configuration conf, Path file) throws IOException {
    FileSplit split = new FileSplit(new org.apache.hadoop.fs.Path(file.toUri()), 0,
        Files.size(file), null);
    TaskAttemptContext context = new TaskAttemptContextImpl(conf, new TaskAttemptID());
    long start = System.nanoTime();
    long lines = 0;
    long bytes = 0;
    long check = 0;
    if (hadoop) {
      try (LineRecordReader reader = new LineRecordReader()) {
        reader.initialize(split, context);
        while (reader.nextKeyValue()) {
          Text line = reader.getCurrentValue();
          lines++;
          bytes += line.getLength();
          check += line.getLength() > 0 ? line.getBytes()[0] : 0;
        }
      }
    } else {
      try (SplitLines reader = new SplitLines.Opener(context).open(split)) {
        while (reader.next()) {
          Text line = reader.line;
          lines++;
          bytes += line.getLength();
          check += line.getLength() > 0 ? line.getBytes()[0] : 0;
        }
      }
    }
    return new Pass(System.nanoTime() - start, lines, bytes, check);
  }
}
