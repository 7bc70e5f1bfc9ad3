package io.github.sparkperceptron.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.LineRecordReader;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

/**
 * Seeded random mutations of small valid LIBSVM and CSV files (characters deleted, inserted or
 * replaced, tokens duplicated or swapped, lines truncated, deleted or repeated, NaN, infinities
 * and huge numbers injected, bad UTF-8 bytes, CR LF, blank lines, a byte order mark). Every
 * mutated file must either read as exactly the rows an independent reference parser
 * ({@link ReferenceReaders}) finds, or fail with a {@link BadInputException} whose message starts
 * with "file:line: " at the line the reference names ("no examples" without a line); nothing
 * else. Semantically neutral mutations must moreover give the unmutated file's rows.
 *
 * <p>Thousands of mutations go through the readers' own check, verdict and row code on Hadoop's
 * line reader directly (no Spark); a few hundred through the Spark readers on the shared session.
 * Every direct mutation also goes through the one-pass reader ({@link TextInput}: its parsers'
 * byte fast path, on 1 and on 3 byte ranges of the file), which must give the two-pass reading's
 * rows or exactly its message.
 */
// More than 8 s on an idle 2-core machine: `mvn verify` runs it, `mvn test` does not.
@Tag("slow")
class ReaderFuzzTest {
  private static final long SEED = 20240611L;
  private static final int DIRECT_PER_BASE = 1000;
  private static final int SPARK_PER_FORMAT = 100;
  /**
   * Without Hadoop's default resources: every task context copies its configuration and every
   * Hadoop line reader scans all of its keys (the option prefixes of its file opener), which for
   * the defaults' thousand-odd keys took two thirds of the direct mutations' time (35-36 s against
   * 10-12 s, BENCHMARKS.md, issue 31). The readers read no setting whose default file value
   * differs from the value Hadoop's code falls back to (buffer size, line length, delimiter,
   * codecs, the local file system), and the Spark half of this class reads through the session's
   * full configuration.
   */
  private static final Configuration CONF = new Configuration(false);
  private static final List<String> STATS = new ArrayList<>();

  @TempDir
  static Path tmp;

  /** A valid file, how to read it, and the reference's reading of it. */
  private static final class Base {
    final String name;
    final boolean csv;
    final byte[] bytes;
    final ReadSpec spec;

    Base(String name, boolean csv, String text, ReadSpec spec) {
      this.name = name;
      this.csv = csv;
      this.bytes = text.getBytes(StandardCharsets.UTF_8);
      this.spec = spec;
    }

    ReferenceReaders.Outcome reference(byte[] content) {
      return csv ? ReferenceReaders.csv(content, spec.labelCol(), spec.featureCols(),
          spec.numFeatures(), spec.numClasses())
          : ReferenceReaders.libsvm(content, spec.numFeatures(), spec.numClasses());
    }
  }

  private static final String LIBSVM_MULTICLASS = "# a small multiclass file\n"
      + "0 1:0.5 3:-1.25 6:2\n"
      + "1 2:1e-3 4:.5   # trailing comment\n"
      + "  \n"
      + "2 1:+3 5:-0.0\n"
      + "0 6:1E2\n"
      + "1\n"
      + "2\t2:7 3:8 4:9\n";
  private static final String LIBSVM_PLUS_MINUS = "+1 1:1 2:2\n-1 3:0.5\n-1 1:-1 4:4\n+1 2:2.5\n";
  private static final String CSV_NAMED = "id,label,x1,x2,x3\n"
      + "\"a,1\",0,0.5,-1.25,2\n"
      + "b,1,1e-3,.5,0\n"
      + "\"say \"\"hi\"\"\",2,+3,-0.0,1\n"
      + "c , 0 , 1E2 , 4 , 5\n"
      + "d,1,7,8,9\n";
  private static final String CSV_DEFAULT = "label,a,b\n-1,1,2\n+1,3,4\n1,0.5,-6\n";

  private static List<Base> bases() {
    ReadSpec plain = ReadSpec.labelled();
    ReadSpec named = plain.withFeatureCols(List.of("x3", "x1", "x2"));
    return List.of(
        new Base("libsvm multiclass", false, LIBSVM_MULTICLASS, plain),
        new Base("libsvm multiclass, model of 6 features and 3 classes", false,
            LIBSVM_MULTICLASS, plain.withNumFeatures(6, "the model").withNumClasses(3)),
        new Base("libsvm -1/+1", false, LIBSVM_PLUS_MINUS, plain),
        new Base("csv named features", true, CSV_NAMED, named),
        new Base("csv named features, model of 3 classes", true, CSV_NAMED,
            named.withNumFeatures(3, "the model").withNumClasses(3)),
        new Base("csv default features, -1/+1", true, CSV_DEFAULT, plain));
  }

  // ---------------------------------------------------------------- mutations

  private static final String[] SPECIALS = {"NaN", "Infinity", "-Infinity", "inf", "nan",
      "1e999", "-1e400", "1e-400", "1e308", "99999999999", "2147483648", "0x10", "1d", "1_000",
      "\u0663", "-0", "+.5", "5.", "e5", "1e", "--1", ""};
  private static final char[] PALETTE = {'0', '1', '9', '.', '-', '+', 'e', 'E', ':', ' ', '\t',
      ',', '"', '#', '\n', '\r', 'x', '\u00e9', '\u00a0', '\u000B', '\f', '\u2028', '\u0000'};
  private static final byte[][] BAD_UTF8 = {{(byte) 0xC3}, {(byte) 0xFF}, {(byte) 0x80},
      {(byte) 0xE2, (byte) 0x82}, {(byte) 0xF0, (byte) 0x9F, (byte) 0x98},
      {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}};

  /** A mutated file and whether the mutation keeps its meaning. */
  private static final class Mutant {
    final byte[] bytes;
    final String how;
    final boolean neutral;

    Mutant(byte[] bytes, String how, boolean neutral) {
      this.bytes = bytes;
      this.how = how;
      this.neutral = neutral;
    }
  }

  private static byte[] splice(byte[] b, int from, int to, byte[] insert) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(b, 0, from);
    out.write(insert, 0, insert.length);
    out.write(b, to, b.length - to);
    return out.toByteArray();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static boolean isSeparator(byte c, boolean csv) {
    return csv ? c == ',' : c == ' ' || c == '\t';
  }

  /** [start, end) of every token: runs between separators and line breaks. */
  private static List<int[]> tokens(byte[] b, boolean csv) {
    List<int[]> list = new ArrayList<>();
    int start = -1;
    for (int i = 0; i <= b.length; i++) {
      boolean boundary = i == b.length || isSeparator(b[i], csv) || b[i] == '\n' || b[i] == '\r';
      if (boundary && start >= 0) {
        list.add(new int[] {start, i});
        start = -1;
      } else if (!boundary && start < 0) {
        start = i;
      }
    }
    return list;
  }

  /** [start, end) of every line, without its terminator. */
  private static List<int[]> lineSpans(byte[] b) {
    List<int[]> list = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < b.length; i++) {
      if (b[i] == '\n') {
        list.add(new int[] {start, i});
        start = i + 1;
      }
    }
    if (start < b.length) {
      list.add(new int[] {start, b.length});
    }
    return list;
  }

  /** One or more random mutations; neutral only when every one applied is neutral. */
  private static Mutant mutate(Base base, Random rnd) {
    byte[] b = base.bytes;
    StringBuilder how = new StringBuilder();
    boolean neutral = true;
    int count = 1 + (rnd.nextInt(4) == 0 ? rnd.nextInt(3) : 0);
    for (int m = 0; m < count; m++) {
      int op = rnd.nextInt(16);
      List<int[]> tokens = tokens(b, base.csv);
      List<int[]> lines = lineSpans(b);
      if (b.length == 0 || tokens.isEmpty() || lines.isEmpty()) {
        op = 1;
      }
      int pos = b.length == 0 ? 0 : rnd.nextInt(b.length);
      switch (op) {
        case 0:
          b = splice(b, pos, pos + 1, new byte[0]);
          how.append("delete char; ");
          neutral = false;
          break;
        case 1:
          b = splice(b, pos, pos, utf8(String.valueOf(PALETTE[rnd.nextInt(PALETTE.length)])));
          how.append("insert char; ");
          neutral = false;
          break;
        case 2:
          b = splice(b, pos, pos + 1, utf8(String.valueOf(PALETTE[rnd.nextInt(PALETTE.length)])));
          how.append("replace char; ");
          neutral = false;
          break;
        case 3: {
          int[] t = tokens.get(rnd.nextInt(tokens.size()));
          byte[] copy = Arrays.copyOfRange(b, t[0], t[1]);
          byte[] sep = utf8(base.csv ? "," : " ");
          ByteArrayOutputStream dup = new ByteArrayOutputStream();
          dup.write(sep, 0, sep.length);
          dup.write(copy, 0, copy.length);
          b = splice(b, t[1], t[1], dup.toByteArray());
          how.append("duplicate token; ");
          neutral = false;
          break;
        }
        case 4: {
          int k = rnd.nextInt(tokens.size());
          if (k + 1 < tokens.size()) {
            int[] t1 = tokens.get(k);
            int[] t2 = tokens.get(k + 1);
            byte[] a = Arrays.copyOfRange(b, t1[0], t1[1]);
            byte[] c = Arrays.copyOfRange(b, t2[0], t2[1]);
            byte[] between = Arrays.copyOfRange(b, t1[1], t2[0]);
            ByteArrayOutputStream swapped = new ByteArrayOutputStream();
            swapped.write(c, 0, c.length);
            swapped.write(between, 0, between.length);
            swapped.write(a, 0, a.length);
            b = splice(b, t1[0], t2[1], swapped.toByteArray());
            how.append("swap tokens; ");
            neutral = false;
          }
          break;
        }
        case 5: {
          int[] line = lines.get(rnd.nextInt(lines.size()));
          int cut = line[0] + rnd.nextInt(line[1] - line[0] + 1);
          b = splice(b, cut, line[1], new byte[0]);
          how.append("truncate line; ");
          neutral = false;
          break;
        }
        case 6: {
          int[] t = tokens.get(rnd.nextInt(tokens.size()));
          int colon = -1;
          for (int i = t[0]; i < t[1]; i++) {
            colon = b[i] == ':' && colon < 0 ? i : colon;
          }
          int from = colon >= 0 && rnd.nextBoolean() ? colon + 1 : t[0];
          b = splice(b, from, t[1], utf8(SPECIALS[rnd.nextInt(SPECIALS.length)]));
          how.append("special number; ");
          neutral = false;
          break;
        }
        case 7:
          b = splice(b, pos, pos, BAD_UTF8[rnd.nextInt(BAD_UTF8.length)]);
          how.append("bad UTF-8; ");
          neutral = false;
          break;
        case 8:
          // ISO-8859-1 maps every byte to one char and back, so bad UTF-8 survives.
          b = new String(b, StandardCharsets.ISO_8859_1).replace("\r\n", "\n")
              .replace("\n", "\r\n").getBytes(StandardCharsets.ISO_8859_1);
          how.append("CRLF; ");
          break;
        case 9: {
          // A blank or white line after a line break; for CSV not before the header.
          int[] line = lines.get(rnd.nextInt(lines.size()));
          int at = line[1] < b.length ? line[1] + 1 : b.length;
          String blank = rnd.nextBoolean() ? "\n" : " \t \n";
          if (at == b.length && b.length > 0 && b[b.length - 1] != '\n') {
            blank = "\n" + blank;
          }
          b = splice(b, at, at, utf8(blank));
          how.append("blank line; ");
          break;
        }
        case 10: {
          int[] t = tokens.get(rnd.nextInt(tokens.size()));
          // Blanks next to a separator or line start are insignificant in both formats (a CSV
          // field is trimmed) except inside a quoted CSV field, which no token boundary is in.
          int at = rnd.nextBoolean() ? t[0] : t[1];
          boolean quoteNear = at < b.length && b[at] == '"' || at > 0 && b[at - 1] == '"';
          if (!quoteNear || !base.csv) {
            b = splice(b, at, at, utf8(rnd.nextBoolean() ? " " : "\t "));
            how.append("blanks; ");
          } else {
            how.append("blanks skipped; ");
          }
          break;
        }
        case 11:
          if (!(b.length >= 3 && (b[0] & 0xFF) == 0xEF)) {
            b = splice(b, 0, 0, new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
          }
          how.append("byte order mark; ");
          break;
        case 12: {
          int[] line = lines.get(rnd.nextInt(lines.size()));
          int end = line[1] < b.length ? line[1] + 1 : line[1];
          b = splice(b, line[0], end, new byte[0]);
          how.append("delete line; ");
          neutral = false;
          break;
        }
        case 13: {
          int[] line = lines.get(rnd.nextInt(lines.size()));
          byte[] copy = Arrays.copyOfRange(b, line[0], line[1]);
          ByteArrayOutputStream twice = new ByteArrayOutputStream();
          twice.write(copy, 0, copy.length);
          twice.write('\n');
          b = splice(b, line[0], line[0], twice.toByteArray());
          how.append("repeat line; ");
          neutral = false;
          break;
        }
        case 14:
          b = splice(b, pos, pos, new byte[] {'\r'});
          how.append("lone CR; ");
          neutral = false;
          break;
        default:
          if (!base.csv) {
            int[] line = lines.get(rnd.nextInt(lines.size()));
            b = splice(b, line[1], line[1], utf8(" # note: 1:2 x"));
            how.append("comment; ");
          } else {
            b = b.length > 0 && b[b.length - 1] == '\n' ? Arrays.copyOf(b, b.length - 1) : b;
            how.append("no final newline; ");
          }
          break;
      }
    }
    return new Mutant(b, how.toString(), neutral);
  }

  // ---------------------------------------------------------------- reading

  /** What a reader made of a file: rows (label, vector), or a BadInputException's message. */
  private static final class Reading {
    final List<Row> rows;
    final String error;

    Reading(List<Row> rows, String error) {
      this.rows = rows;
      this.error = error;
    }
  }

  /** (offset, line) records exactly as Spark's text input gets them, copied out of Hadoop's reuse. */
  private static List<Tuple2<LongWritable, Text>> records(Path file) throws IOException {
    List<Tuple2<LongWritable, Text>> records = new ArrayList<>();
    FileSplit split = new FileSplit(new org.apache.hadoop.fs.Path(file.toUri()), 0,
        Files.size(file), null);
    try (LineRecordReader reader = new LineRecordReader()) {
      reader.initialize(split, new TaskAttemptContextImpl(CONF, new TaskAttemptID()));
      while (reader.nextKeyValue()) {
        records.add(new Tuple2<>(new LongWritable(reader.getCurrentKey().get()),
            new Text(reader.getCurrentValue())));
      }
    }
    return records;
  }

  /** The production readers' own passes, on one split, without Spark. */
  private static Reading readDirect(Base base, Path file) throws IOException {
    List<Tuple2<LongWritable, Text>> records = records(file);
    String name = new org.apache.hadoop.fs.Path(file.toUri()).toString();
    String role = "fuzzed data";
    List<Row> rows = new ArrayList<>();
    try {
      if (base.csv) {
        FileSplit split = new FileSplit(new org.apache.hadoop.fs.Path(file.toUri()), 0,
            Files.size(file), null);
        List<Tuple2<String, String>> header = CsvSource.header(split, records.iterator());
        CsvLayout layout = CsvSource.layout(CONF, header, base.spec, file.toString(), role,
            CsvSource.suffix(role));
        SplitReport report = CsvSource.check(name, records.iterator(), layout, base.spec);
        SplitReport.Verdict verdict = SplitReport.combine(CONF, List.of(report), base.spec,
            file.toString(), role, CsvSource.suffix(role));
        CsvSource.toRows(records.iterator(), layout, verdict.mapPlusMinusOne())
            .forEachRemaining(rows::add);
      } else {
        SplitReport report = LibSvmSource.check(name, records.iterator(), base.spec);
        SplitReport.Verdict verdict = SplitReport.combine(CONF, List.of(report), base.spec,
            file.toString(), role, LibSvmSource.suffix(role));
        int d = base.spec.numFeatures() >= 0 ? base.spec.numFeatures() : verdict.maxIndex() + 1;
        LibSvmSource.toRows(records.iterator(), d, verdict.mapPlusMinusOne())
            .forEachRemaining(rows::add);
      }
    } catch (BadInputException e) {
      return new Reading(null, e.getMessage());
    }
    return new Reading(rows, null);
  }

  /**
   * The one-pass reader ({@link TextInput}) on {@code workers} workers (who share the file's one
   * split row by row), its examples collected from the sink in worker order, without Spark.
   */
  private static Reading readOnePass(Base base, Path file, int workers) {
    List<Object[]> examples = new ArrayList<>();
    RowSink sink = new RowSink() {
      @Override
      public String sparse(int classIndex, double weight, int[] indices, double[] values,
          int nnz) {
        examples.add(new Object[] {classIndex, Arrays.copyOf(indices, nnz),
            Arrays.copyOf(values, nnz)});
        return null;
      }

      @Override
      public String dense(int classIndex, double weight, double[] values) {
        examples.add(new Object[] {classIndex, null, values.clone()});
        return null;
      }
    };
    try {
      TextInput text = TextInput.plan(CONF, file.toString(), base.csv ? TextInput.Format.CSV
          : TextInput.Format.LIBSVM, base.spec, "fuzzed data", workers, true);
      List<SplitReport> reports = new ArrayList<>();
      for (int j = 0; j < workers; j++) {
        reports.add(text.read(j, sink));
      }
      TextInput.Verdict verdict = text.verdict(reports);
      List<Row> rows = new ArrayList<>();
      for (Object[] e : examples) {
        Vector v = e[1] == null ? Vectors.dense((double[]) e[2])
            : Vectors.sparse(verdict.numFeatures(), (int[]) e[1], (double[]) e[2]);
        rows.add(RowFactory.create((double) (int) e[0], v));
      }
      return new Reading(rows, null);
    } catch (BadInputException e) {
      return new Reading(null, e.getMessage());
    }
  }

  /**
   * {@code reading}'s rows in the order {@code workers} workers sharing one split hand them over:
   * worker j has rows j, j + W, j + 2W, ... (the DataFrame path's round-robin deal of one input
   * partition), worker 0's first.
   */
  private static Reading dealt(Reading reading, int workers) {
    if (reading.rows == null) {
      return reading;
    }
    List<Row> rows = new ArrayList<>();
    for (int j = 0; j < workers; j++) {
      for (int r = j; r < reading.rows.size(); r += workers) {
        rows.add(reading.rows.get(r));
      }
    }
    return new Reading(rows, null);
  }

  /** The one-pass reading equals the two-pass one: the same rows, or the same message. */
  private static void assertSameReading(Reading twoPass, Reading onePass, String context) {
    assertEquals(twoPass.error, onePass.error, context);
    if (twoPass.rows != null) {
      assertEquals(twoPass.rows.size(), onePass.rows.size(), context);
      for (int r = 0; r < twoPass.rows.size(); r++) {
        Row a = twoPass.rows.get(r);
        Row b = onePass.rows.get(r);
        // A class index beyond int's range reaches the sink as Integer.MAX_VALUE (RowSink).
        assertEquals(Math.min(a.getDouble(0), Integer.MAX_VALUE), b.getDouble(0), 0.0,
            "label of row " + r + ": " + context);
        Vector va = (Vector) a.get(1);
        Vector vb = (Vector) b.get(1);
        assertEquals(va.size(), vb.size(), context);
        assertTrue(Arrays.equals(dense(va, va.size()), dense(vb, vb.size())),
            "row " + r + ": " + context);
      }
    }
  }

  private static Reading readWithSpark(SparkSession spark, Base base, Path file) {
    try {
      LabeledData data = base.csv
          ? CsvSource.read(spark, file.toString(), base.spec, "fuzzed data")
          : LibSvmSource.read(spark, file.toString(), base.spec, "fuzzed data");
      return new Reading(data.frame().collectAsList(), null);
    } catch (BadInputException e) {
      return new Reading(null, e.getMessage());
    }
  }

  // ---------------------------------------------------------------- checking

  /** Counts of what happened, per path. */
  private static final class Tally {
    int tried;
    int parsed;
    int rejectedAtLine;
    int rejectedEmpty;
    int neutral;
    /** Mutations the one-pass reader read as the two-pass one (1 and 3 workers). */
    int onePass;

    String describe(String what) {
      return String.format(Locale.ROOT, "%s: %,d mutations, %,d read as the reference's rows"
          + " (%,d of them neutral, equal to the unmutated file's rows), %,d rejected with"
          + " file:line, %,d rejected as holding no examples; %,d read alike by the one-pass"
          + " reader", what, tried, parsed, neutral, rejectedAtLine, rejectedEmpty, onePass);
    }
  }

  private static String show(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) {
      if (x >= 0x20 && x < 0x7F) {
        sb.append((char) x);
      } else {
        sb.append(String.format("\\x%02x", x & 0xFF));
      }
    }
    return sb.toString();
  }

  private static double[] dense(Vector v, int size) {
    double[] x = new double[size];
    if (v instanceof SparseVector) {
      SparseVector sv = (SparseVector) v;
      for (int k = 0; k < sv.indices().length; k++) {
        x[sv.indices()[k]] = sv.values()[k];
      }
    } else {
      x = ((DenseVector) v).values().clone();
    }
    return x;
  }

  /** Asserts that a reading agrees with the reference; returns the reading's kind for tallies. */
  private static void check(Base base, Mutant mutant, Path file, Reading reading,
      ReferenceReaders.Outcome expected, ReferenceReaders.Outcome original, Tally tally) {
    String context = base.name + " / " + mutant.how + "\n" + show(mutant.bytes);
    tally.tried++;
    if (expected.errorLine > 0) {
      assertTrue(reading.error != null, "expected an error at line " + expected.errorLine
          + " for " + context);
      String prefix = file + ":" + expected.errorLine + ": ";
      assertTrue(reading.error.startsWith(prefix), "expected '" + prefix + "...' for " + context
          + "\ngot: " + reading.error);
      assertEquals(1, reading.error.lines().count(), "one line: " + reading.error);
      tally.rejectedAtLine++;
      return;
    }
    if (expected.errorLine == 0) {
      assertTrue(reading.error != null && reading.error.contains("hold no examples"),
          "expected 'no examples' for " + context + "\ngot: " + reading.error);
      tally.rejectedEmpty++;
      return;
    }
    assertTrue(reading.error == null, "expected rows for " + context + "\ngot: " + reading.error);
    assertEquals(expected.rows(), reading.rows.size(), context);
    for (int r = 0; r < expected.rows(); r++) {
      Row row = reading.rows.get(r);
      assertEquals(expected.labels.get(r)[0], row.getDouble(0), 0.0, "label of row " + r + ": "
          + context);
      Vector v = (Vector) row.get(1);
      assertEquals(expected.numFeatures, v.size(), "width: " + context);
      double[] want = new double[expected.numFeatures];
      int[] idx = expected.indices.get(r);
      for (int k = 0; k < idx.length; k++) {
        want[idx[k]] = expected.values.get(r)[k];
      }
      assertTrue(Arrays.equals(want, dense(v, v.size())), "row " + r + " is "
          + Arrays.toString(dense(v, v.size())) + ", expected " + Arrays.toString(want) + ": "
          + context);
      if (v instanceof SparseVector) {
        assertTrue(Arrays.equals(idx, ((SparseVector) v).indices()),
            "stored indices of row " + r + ": " + context);
      }
    }
    tally.parsed++;
    if (mutant.neutral) {
      assertEquals(original.rows(), expected.rows(), "a neutral mutation keeps the rows: "
          + context);
      for (int r = 0; r < original.rows(); r++) {
        assertEquals(original.labels.get(r)[0], expected.labels.get(r)[0], 0.0, context);
        assertTrue(Arrays.equals(original.values.get(r), expected.values.get(r)), context);
      }
      tally.neutral++;
    }
  }

  /**
   * Where the direct path rewrites its one scratch file: a RAM-backed directory when the machine
   * has one, since rewriting a file costs milliseconds on some disks (ext4 with discard: 2.7 ms,
   * against 0.02 ms on tmpfs), which thousands of mutations would feel.
   */
  private static Path scratchDirectory() throws IOException {
    Path shm = Path.of("/dev/shm");
    if (Files.isDirectory(shm) && Files.isWritable(shm)) {
      Path dir = Files.createTempDirectory(shm, "reader-fuzz-");
      dir.toFile().deleteOnExit();
      return dir;
    }
    return tmp;
  }

  @AfterAll
  static void writeStats() throws IOException {
    Path target = TestData.projectRoot().resolve("target/fuzz-stats.txt");
    Files.createDirectories(target.getParent());
    Files.write(target, STATS);
    STATS.forEach(System.out::println);
  }

  @Test
  void everyMutationReadsAsTheReferenceOrFailsWithFileAndLine() throws IOException {
    Random rnd = new Random(SEED);
    Tally libsvm = new Tally();
    Tally csv = new Tally();
    Path scratch = scratchDirectory();
    for (Base base : bases()) {
      ReferenceReaders.Outcome original = base.reference(base.bytes);
      assertEquals(-1, original.errorLine, "the unmutated " + base.name + " file reads");
      Path file = scratch.resolve("direct-" + (base.csv ? "csv" : "libsvm"));
      for (int i = 0; i < DIRECT_PER_BASE; i++) {
        Mutant mutant = mutate(base, rnd);
        Files.write(file, mutant.bytes);
        Reading reading;
        try {
          reading = readDirect(base, file);
        } catch (RuntimeException | Error e) {
          throw new AssertionError("not a BadInputException for " + base.name + " / "
              + mutant.how + "\n" + show(mutant.bytes), e);
        }
        check(base, mutant, file, reading, base.reference(mutant.bytes), original,
            base.csv ? csv : libsvm);
        String context = base.name + " / " + mutant.how + "\n" + show(mutant.bytes);
        for (int workers : new int[] {1, 3}) {
          Reading onePass;
          try {
            onePass = readOnePass(base, file, workers);
          } catch (RuntimeException | Error e) {
            throw new AssertionError("one-pass reader, " + workers + " workers: not a"
                + " BadInputException for " + context, e);
          }
          assertSameReading(dealt(reading, workers), onePass, "one-pass reader, " + workers
              + " workers: " + context);
        }
        (base.csv ? csv : libsvm).onePass++;
      }
    }
    if (!scratch.equals(tmp)) {
      for (Base base : bases()) {
        Files.deleteIfExists(scratch.resolve("direct-" + (base.csv ? "csv" : "libsvm")));
      }
      Files.delete(scratch);
    }
    STATS.add(libsvm.describe("LIBSVM, parser classes on Hadoop's line reader"));
    STATS.add(csv.describe("CSV, parser classes on Hadoop's line reader"));
  }

  @Test
  void mutationsReadThroughSparkAgreeWithTheReferenceToo() throws Exception {
    SparkSession spark = SparkTestSupport.spark();
    Random rnd = new Random(SEED + 1);
    List<Base> bases = bases();
    List<Base> used = new ArrayList<>();
    List<Mutant> mutants = new ArrayList<>();
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < 2 * SPARK_PER_FORMAT; i++) {
      Base base = bases.get(i % bases.size());
      Mutant mutant = mutate(base, rnd);
      if (mutant.bytes.length == 0) {
        continue; // an empty file is the path check's business ("holds no data")
      }
      Path file = tmp.resolve("spark-" + i + (base.csv ? ".csv" : ".libsvm"));
      Files.write(file, mutant.bytes);
      used.add(base);
      mutants.add(mutant);
      files.add(file);
    }
    // Two reads at a time: most of a read's time is the driver planning and scheduling tiny
    // jobs, which overlaps well; the checks below still run in seed order.
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Future<Reading>> readings = new ArrayList<>();
    try {
      for (int i = 0; i < files.size(); i++) {
        Base base = used.get(i);
        Path file = files.get(i);
        readings.add(pool.submit(() -> readWithSpark(spark, base, file)));
      }
      Tally libsvm = new Tally();
      Tally csv = new Tally();
      for (int i = 0; i < files.size(); i++) {
        Base base = used.get(i);
        Reading reading;
        try {
          reading = readings.get(i).get();
        } catch (ExecutionException e) {
          throw new AssertionError("not a BadInputException for " + base.name + " / "
              + mutants.get(i).how + "\n" + show(mutants.get(i).bytes), e.getCause());
        }
        check(base, mutants.get(i), files.get(i), reading, base.reference(mutants.get(i).bytes),
            base.reference(base.bytes), base.csv ? csv : libsvm);
      }
      STATS.add(libsvm.describe("LIBSVM through Spark"));
      STATS.add(csv.describe("CSV through Spark"));
      if (libsvm.tried + csv.tried < SPARK_PER_FORMAT) {
        fail("too few mutations reached Spark: " + (libsvm.tried + csv.tried));
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
