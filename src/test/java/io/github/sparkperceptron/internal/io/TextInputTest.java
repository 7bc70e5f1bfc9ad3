package io.github.sparkperceptron.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.SparkTestSupport;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.spark.api.java.JavaNewHadoopRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

/**
 * Which lines each worker of a one-pass read gets, against Spark's own reading of the same files
 * ({@code newAPIHadoopFile}: its partitions are the input splits): with at least as many splits
 * as workers, worker j reads exactly the lines of splits ⌊j·P/W⌋ .. ⌊(j+1)·P/W⌋ − 1; with fewer,
 * split p's examples are dealt round-robin over its c workers ⌈p·W/P⌉ + k, example r to k = r mod
 * c (plain and gzip files alike). Every example is read once, in file order within a worker.
 */
class TextInputTest {
  @TempDir
  static Path dir;

  private static SparkSession spark;

  @BeforeAll
  static void session() {
    spark = SparkTestSupport.spark();
  }

  /** Lines "0 1:i" of random lengths (the value names the line), LF or CR LF, blank lines too. */
  private static Path numberedFile(String name, int lines, long seed, boolean crlf)
      throws IOException {
    Random rnd = new Random(seed);
    StringBuilder sb = new StringBuilder();
    for (int i = 1; i <= lines; i++) {
      sb.append(i % 2).append(" 1:").append(i);
      for (int k = 2, n = 2 + rnd.nextInt(6); k < n; k++) {
        sb.append(' ').append(k).append(":0.").append(rnd.nextInt(1000));
      }
      sb.append(crlf ? "\r\n" : "\n");
      if (rnd.nextInt(7) == 0) {
        sb.append(crlf ? "\r\n" : "\n");
      }
    }
    Path file = dir.resolve(name);
    Files.writeString(file, sb.toString());
    return file;
  }

  /** The value of feature 1 of every example each worker reads, in order. */
  private static List<List<Integer>> workerRows(TextInput text) {
    List<List<Integer>> out = new ArrayList<>();
    for (int j = 0; j < text.numWorkers(); j++) {
      List<Integer> rows = new ArrayList<>();
      SplitReport report = text.read(j, new RowSink() {
        @Override
        public String sparse(int classIndex, double weight, int[] indices, double[] values,
            int nnz) {
          rows.add((int) values[0]);
          return null;
        }

        @Override
        public String dense(int classIndex, double weight, double[] values) {
          throw new AssertionError("LIBSVM rows are sparse");
        }
      });
      assertEquals(null, report.firstBadLine == null ? null : report.firstBadLine.reason,
          "worker " + j + " reads without a problem");
      out.add(rows);
    }
    return out;
  }

  /** A split as Spark reads it: its byte range and its lines' (offset, feature-1 value). */
  private record SparkSplit(long start, long end, List<long[]> lines)
      implements Serializable {
  }

  /** The input's splits and lines as Spark's text input reads them, in partition order. */
  @SuppressWarnings("unchecked")
  private static List<SparkSplit> sparkSplits(String path) {
    JavaNewHadoopRDD<LongWritable, Text> lines = (JavaNewHadoopRDD<LongWritable, Text>)
        JavaSparkContext.fromSparkContext(spark.sparkContext()).newAPIHadoopFile(path,
            TextInputFormat.class, LongWritable.class, Text.class,
            new Configuration(spark.sparkContext().hadoopConfiguration()));
    return lines.mapPartitionsWithInputSplit((split, it) -> {
      FileSplit f = (FileSplit) split;
      List<long[]> found = new ArrayList<>();
      while (it.hasNext()) {
        Tuple2<LongWritable, Text> line = it.next();
        String text = line._2().toString().strip();
        if (!text.isEmpty()) {
          String one = text.split(" ")[1];
          found.add(new long[] {line._1().get(), Long.parseLong(one.substring(2))});
        }
      }
      return List.of(new SparkSplit(f.getStart(), f.getStart() + f.getLength(), found))
          .iterator();
    }, true).collect();
  }

  /** What the class comment says worker j reads, computed from Spark's splits. */
  private static List<List<Integer>> expected(List<SparkSplit> splits, int workers) {
    int p = splits.size();
    List<List<Integer>> out = new ArrayList<>();
    for (int j = 0; j < workers; j++) {
      out.add(new ArrayList<>());
    }
    if (p >= workers) {
      for (int j = 0; j < workers; j++) {
        for (int s = (int) ((long) j * p / workers); s < (int) ((long) (j + 1) * p / workers);
            s++) {
          for (long[] line : splits.get(s).lines()) {
            out.get(j).add((int) line[1]);
          }
        }
      }
      return out;
    }
    for (int s = 0; s < p; s++) {
      SparkSplit split = splits.get(s);
      int first = (int) (((long) s * workers + p - 1) / p);
      int count = (int) (((long) (s + 1) * workers + p - 1) / p) - first;
      for (int r = 0; r < split.lines().size(); r++) {
        out.get(first + r % count).add((int) split.lines().get(r)[1]);
      }
    }
    return out;
  }

  private static final String MAX_SPLIT = "mapreduce.input.fileinputformat.split.maxsize";

  @Test
  void everyExampleGoesToAWorkerOfItsSplitOnceAndInOrder() throws IOException {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    Path lf = numberedFile("numbered-lf.libsvm", 700, 1, false);
    Path crlf = numberedFile("numbered-crlf.libsvm", 500, 2, true);
    for (Path file : List.of(lf, crlf)) {
      for (long maxSplit : new long[] {Long.MAX_VALUE, 4000, 1777}) {
        String old = conf.get(MAX_SPLIT);
        conf.setLong(MAX_SPLIT, maxSplit);
        try {
          List<SparkSplit> splits = sparkSplits(file.toString());
          for (int workers : new int[] {1, 2, 3, 5, 8, 13, 31}) {
            TextInput text = TextInput.plan(conf, file.toString(), TextInput.Format.LIBSVM,
                ReadSpec.labelled(), "test data", workers, true);
            assertEquals(splits.size(), text.inputSplits(), "the same splits as Spark's");
            assertEquals(expected(splits, workers), workerRows(text),
                file.getFileName() + ", max split " + maxSplit + ", " + workers + " workers, "
                    + splits.size() + " splits");
          }
        } finally {
          if (old == null) {
            conf.unset(MAX_SPLIT);
          } else {
            conf.set(MAX_SPLIT, old);
          }
        }
      }
    }
  }

  /**
   * The readers' tasks get the context's Hadoop configuration from one broadcast for as long as
   * it holds the same properties (a stream plans a read every batch), and from a new one, which
   * carries the change in its serialised form (what a cluster's executors read), once a property
   * changed.
   */
  @Test
  void theConfigurationIsBroadcastAgainOnlyWhenAPropertyChanged() throws Exception {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    String key = "sp.test.shipped-configuration";
    conf.unset(key);
    long first = ShippedConfiguration.of(spark.sparkContext()).id();
    assertEquals(first, ShippedConfiguration.of(spark.sparkContext()).id());
    conf.set(key, "changed");
    try {
      Broadcast<ShippedConfiguration.Value> changed = ShippedConfiguration.of(spark.sparkContext());
      assertTrue(changed.id() != first, "a new broadcast after a property changed");
      assertEquals(changed.id(), ShippedConfiguration.of(spark.sparkContext()).id());
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
        out.writeObject(changed.value());
      }
      try (ObjectInputStream in = new ObjectInputStream(
          new ByteArrayInputStream(bytes.toByteArray()))) {
        Configuration read = ((ShippedConfiguration.Value) in.readObject()).conf();
        assertEquals("changed", read.get(key));
        assertEquals(conf.get(MAX_SPLIT), read.get(MAX_SPLIT));
      }
      conf.set(key, "changed again");
      assertTrue(ShippedConfiguration.of(spark.sparkContext()).id() != changed.id(),
          "a value changed, the key set unchanged");
    } finally {
      conf.unset(key);
    }
  }

  @Test
  void aGzipFileIsSharedRowByRowLikeAnyOther() throws IOException {
    Path plain = numberedFile("shared.libsvm", 100, 3, false);
    Path gz = dir.resolve("shared.libsvm.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(Files.readAllBytes(plain));
    }
    TextInput text = TextInput.plan(spark, gz.toString(), TextInput.Format.LIBSVM,
        ReadSpec.labelled(), "test data", 3);
    assertEquals(1, text.inputSplits());
    List<List<Integer>> rows = workerRows(text);
    for (int k = 0; k < 3; k++) {
      List<Integer> share = new ArrayList<>();
      for (int i = 1 + k; i <= 100; i += 3) {
        share.add(i);
      }
      assertEquals(share, rows.get(k), "worker " + k + " keeps rows r with r mod 3 = " + k);
    }
  }

  @Test
  void filesAreSplitAsSparkSplitsThemEmptyOnesIncluded() throws IOException {
    Path many = Files.createDirectories(dir.resolve("many"));
    Files.writeString(many.resolve("a.libsvm"), "0 1:1\n1 1:2\n");
    Files.writeString(many.resolve("b.libsvm"), "");
    Files.writeString(many.resolve("c.libsvm"), "1 1:3\n");
    List<SparkSplit> splits = sparkSplits(many.toString());
    for (int workers : new int[] {1, 2, 3, 4}) {
      TextInput text = TextInput.plan(spark, many.toString(), TextInput.Format.LIBSVM,
          ReadSpec.labelled(), "test data", workers);
      assertEquals(splits.size(), text.inputSplits());
      assertEquals(expected(splits, workers), workerRows(text), workers + " workers");
    }
  }

  @Test
  void aCsvFileWhoseHeaderDiffersIsNamedWithTheFirstFile() throws IOException {
    Path csv = Files.createDirectories(dir.resolve("csv"));
    Files.writeString(csv.resolve("1.csv"), "label,a,b\n0,1,2\n1,3,4\n");
    Files.writeString(csv.resolve("2.csv"), "label,b,a\n0,1,2\n");
    TextInput text = TextInput.plan(spark, csv.toString(), TextInput.Format.CSV,
        ReadSpec.labelled(), "training data (--train)", 2);
    List<SplitReport> reports = new ArrayList<>();
    RowSink ignore = new RowSink() {
      @Override
      public String sparse(int classIndex, double weight, int[] indices, double[] values,
          int nnz) {
        return null;
      }

      @Override
      public String dense(int classIndex, double weight, double[] values) {
        return null;
      }
    };
    for (int j = 0; j < 2; j++) {
      reports.add(text.read(j, ignore));
    }
    BadInputException e = assertThrows(BadInputException.class, () -> text.verdict(reports));
    String message = e.getMessage();
    // Which file is first is the file system's listing order (not sorted on local disks).
    assertTrue(message.contains(".csv:1: the header row differs from that of " + csv
        + "/") && message.contains(".csv; every file must have the same columns"), message);
    // The two-pass reader says the same.
    BadInputException twoPass = assertThrows(BadInputException.class, () -> CsvSource.read(
        spark, csv.toString(), ReadSpec.labelled(), "training data (--train)"));
    assertEquals(twoPass.getMessage(), message);
  }

  @Test
  void aWorkerStopsSendingAtTheFirstProblemAndSaysSo() throws IOException {
    Path file = dir.resolve("refused.libsvm");
    Files.writeString(file, "0 1:1\n1 1:2\n1 1:3\n0 1:4\n", StandardCharsets.UTF_8);
    TextInput text = TextInput.plan(spark, file.toString(), TextInput.Format.LIBSVM,
        ReadSpec.labelled(), "test data", 1);
    List<Integer> sent = new ArrayList<>();
    SplitReport report = text.read(0, new RowSink() {
      @Override
      public String sparse(int classIndex, double weight, int[] indices, double[] values,
          int nnz) {
        sent.add((int) values[0]);
        return values[0] == 2 ? "no second row, please" : null;
      }

      @Override
      public String dense(int classIndex, double weight, double[] values) {
        return null;
      }
    });
    assertEquals(List.of(1, 2), sent);
    assertTrue(report.isIncomplete());
    BadInputException e = assertThrows(BadInputException.class,
        () -> text.verdict(List.of(report)));
    assertTrue(e.getMessage().startsWith(file + ":2: no second row, please"), e.getMessage());
  }
}
