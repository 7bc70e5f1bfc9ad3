package io.github.sparkperceptron.internal.io;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import scala.Tuple2;
import scala.reflect.ClassTag$;

/**
 * How {@link TextInput} plans a one-pass read: the input's splits as Hadoop's text format cuts
 * them (the two-pass readers' partitions), the ranges each worker reads (whole splits, or with
 * fewer splits than workers a share of one split's rows), and for CSV the first header row.
 * Reads no example.
 */
final class TextSplits {
  private TextSplits() {
  }

  /** A split a worker reads, all of it or (shares > 1) its share of the split's rows. */
  static final class Range implements Serializable {
    private static final long serialVersionUID = 1L;
    final String file;
    final long start;
    final long length;
    /** Keep rows r with r mod shares = share (the whole file is read); 0 of 1 for a range. */
    final int share;
    final int shares;
    final String[] hosts;

    Range(String file, long start, long length, int share, int shares, String[] hosts) {
      this.file = file;
      this.start = start;
      this.length = length;
      this.share = share;
      this.shares = shares;
      this.hosts = hosts;
    }
  }

  /** The input's splits as Hadoop's text format makes them (what newAPIHadoopFile reads). */
  static List<FileSplit> splits(Configuration conf, String path,
      boolean ignoreEmpty) {
    try {
      // A copy of conf, which setInputPaths changes (Job.getInstance copies it).
      Job job = Job.getInstance(conf);
      FileInputFormat.setInputPaths(job, path);
      List<FileSplit> out = new ArrayList<>();
      for (InputSplit s : new TextInputFormat().getSplits(job)) {
        FileSplit split = (FileSplit) s;
        // Spark's Hadoop RDDs drop empty splits (spark.hadoopRDD.ignoreEmptySplits): the same
        // splits, so that P, and with it the workers' rows, are the two-pass readers'.
        if (!ignoreEmpty || split.getLength() > 0) {
          out.add(split);
        }
      }
      return out;
    } catch (IOException e) {
      throw new BadInputException("Cannot list the input '" + path + "': " + e.getMessage(), e);
    }
  }

  /** The ranges of each worker (see {@link TextInput}'s documentation). */
  static Range[][] assign(List<FileSplit> splits, int workers) {
    int p = splits.size();
    Range[][] out = new Range[workers][];
    if (p >= workers) {
      for (int j = 0; j < workers; j++) {
        int from = (int) ((long) j * p / workers);
        int to = (int) ((long) (j + 1) * p / workers);
        out[j] = new Range[to - from];
        for (int i = from; i < to; i++) {
          out[j][i - from] = whole(splits.get(i), 0, 1);
        }
      }
      return out;
    }
    for (int s = 0; s < p; s++) {
      FileSplit split = splits.get(s);
      int first = firstWorker(s, p, workers);
      int count = firstWorker(s + 1, p, workers) - first;
      for (int k = 0; k < count; k++) {
        out[first + k] = new Range[] {whole(split, k, count)};
      }
    }
    return out;
  }

  /** ⌈s·W/P⌉: the first worker of split s when there are fewer splits than workers. */
  private static int firstWorker(int s, int splits, int workers) {
    return (int) (((long) s * workers + splits - 1) / splits);
  }

  private static Range whole(FileSplit split, int share, int shares) {
    return new Range(split.getPath().toString(), split.getStart(), split.getLength(), share,
        shares, hosts(split));
  }

  private static String[] hosts(FileSplit split) {
    try {
      return split.getLocations();
    } catch (IOException e) {
      return new String[0];
    }
  }

  /**
   * The layout of the first header row in split order (the first file that has a line), as
   * {@link CsvSource} takes it; every other file's header is compared with it as it is read.
   */
  static Tuple2<String, CsvLayout> firstLayout(Configuration conf, List<FileSplit> splits,
      ReadSpec spec, String path, String role) {
    String suffix = CsvSource.suffix(role);
    for (FileSplit split : splits) {
      if (split.getStart() != 0) {
        continue;
      }
      String file = split.getPath().toString();
      String header;
      try {
        header = firstLine(conf, split);
      } catch (IOException e) {
        // The header line itself cannot be read: said as the two-pass reader says it.
        throw new BadInputException(Problem.displayName(file) + ": "
            + ReaderSupport.unreadable(file, e), e);
      }
      if (header == null) {
        continue;
      }
      try {
        return new Tuple2<>(file, CsvLayout.of(header, spec));
      } catch (IllegalArgumentException e) {
        throw Problem.atLine(file, 0, e.getMessage()).toException(conf, suffix);
      }
    }
    throw ReaderSupport.noExamples(role, path);
  }

  private static String firstLine(Configuration conf, FileSplit split) throws IOException {
    TaskAttemptContext context = new TaskAttemptContextImpl(conf, new TaskAttemptID());
    try (SplitLines lines = new SplitLines.Opener(context).open(split)) {
      return lines.next() && lines.offset == 0 ? lines.line.toString() : null;
    }
  }
}
