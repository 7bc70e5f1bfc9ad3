package io.github.sparkperceptron.internal.io;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;

/**
 * A LIBSVM or CSV input read in one pass by W workers, each parsing its own lines straight into
 * a {@link RowSink} (the engine's training blocks) while it gathers what the checks need (the
 * labels, the widths, the first bad line with its file and byte offset), so that the driver can
 * refuse bad input with the messages of {@link LibSvmSource} and {@link CsvSource} before anything
 * is learned: the two-pass readers parse every line twice and hand the rows on as objects.
 *
 * <p>Which lines a worker reads is a pure function of the files and W: Hadoop's
 * {@link TextInputFormat} cuts the input into its P splits (by file, and by
 * {@code mapreduce.input.fileinputformat.split.maxsize} and the file system's block size), the
 * same splits as the two-pass readers' partitions, and
 * <pre>
 * P ≥ W   worker j reads splits ⌊j·P/W⌋ .. ⌊(j+1)·P/W⌋ − 1, one after the other: the rows and
 *         the order the engine's coalesce of the P partitions gives (WorkerLayout)
 * P &lt; W   split p goes to the c workers j = ⌈p·W/P⌉ + k, k = 0 .. c − 1 (c = ⌈(p+1)·W/P⌉ −
 *         ⌈p·W/P⌉ ≥ 1): each reads the whole split and keeps its rows r (0-based, blank lines
 *         not counted) with r mod c = k, round-robin as the DataFrame path deals them
 * </pre>
 * Nothing is shuffled. With one split (a small file: every data sample, the README's quick start)
 * the rows and their order are those of {@code fit} on the two-pass readers' DataFrame, which
 * deals the split round-robin over all W workers, so the models are bit-identical; from two splits
 * on, the DataFrame path deals every split over all W workers (a shuffle), this path over the
 * split's own c workers. A worker never reads more than one split's bytes, as when P ≥ W, and a
 * split's rows spread over its workers however its lines are ordered (a file sorted by label
 * still gives every worker both classes, where byte ranges would not).
 *
 * <p>Cost: each line is parsed once, by its worker, from its bytes ({@link
 * LibSvmParser#parse(Text)}, {@link CsvParser#splitBytes}; only a bad line is decoded into a
 * string, to be described), its lines found by {@link SplitLines}; a split shared by c workers is
 * read (not parsed) c times.
 */
public final class TextInput implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The text formats. */
  public enum Format {
    LIBSVM, CSV
  }

  private final Format format;
  private final ReadSpec spec;
  private final String path;
  private final String role;
  /** CSV: the columns, from the first file's header row; {@code null} for LIBSVM. */
  private final CsvLayout layout;
  /** CSV: the file whose header row {@link #layout} is. */
  private final String layoutFile;
  /** The width the rows must have, or −1 (LIBSVM) to take the largest index. */
  private final int numFeatures;
  private final int inputSplits;
  /** Per worker, the ranges it reads, in order. */
  private final TextSplits.Range[][] ranges;
  /**
   * The Hadoop configuration: a broadcast {@link ShippedConfiguration.Value}, or a value itself
   * (tests).
   */
  private final Serializable conf;

  /** A plan without its Hadoop configuration ({@link #TextInput(TextInput, Serializable)}). */
  private TextInput(Format format, ReadSpec spec, String path, String role,
      Tuple2<String, CsvLayout> header, TextSplits.Range[][] ranges, int inputSplits) {
    this.format = format;
    this.spec = spec;
    this.path = path;
    this.role = role;
    this.layoutFile = header == null ? null : header._1();
    this.layout = header == null ? null : header._2();
    this.numFeatures = layout != null ? layout.featureIndices.length : spec.numFeatures();
    this.inputSplits = inputSplits;
    this.ranges = ranges;
    this.conf = null;
  }

  /** {@code plan} reading with the Hadoop configuration {@code conf}. */
  private TextInput(TextInput plan, Serializable conf) {
    this.format = plan.format;
    this.spec = plan.spec;
    this.path = plan.path;
    this.role = plan.role;
    this.layoutFile = plan.layoutFile;
    this.layout = plan.layout;
    this.numFeatures = plan.numFeatures;
    this.inputSplits = plan.inputSplits;
    this.ranges = plan.ranges;
    this.conf = conf;
  }

  /**
   * Plans the reading of {@code path} by {@code numWorkers} workers: checks that the path holds
   * data, cuts it into splits and ranges, and for CSV reads the first file's header row. Reads
   * no example yet.
   *
   * @param spec what the data must fit (its widths and label handling; CSV: its columns); the
   *     labels must be checked ({@link ReadSpec#labelsChecked()}): this reader is for labelled data
   * @param role what the data are for, used in messages, e.g. "training data (--train)"
   * @throws BadInputException for a missing or empty path, or a CSV header that does not fit
   */
  public static TextInput plan(SparkSession spark, String path, Format format, ReadSpec spec,
      String role, int numWorkers) {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    boolean ignoreEmpty = spark.sparkContext().getConf()
        .getBoolean("spark.hadoopRDD.ignoreEmptySplits", true);
    TextInput local = plan(conf, path, format, spec, role, numWorkers, ignoreEmpty);
    return new TextInput(local, ShippedConfiguration.of(spark.sparkContext()));
  }

  /**
   * {@link #plan(SparkSession, String, Format, ReadSpec, String, int)} without Spark, for
   * tests: the configuration travels with the plan instead of in a broadcast.
   */
  static TextInput plan(Configuration conf, String path, Format format, ReadSpec spec,
      String role, int numWorkers, boolean ignoreEmptySplits) {
    if (!spec.labelsChecked()) {
      throw new IllegalArgumentException("the one-pass reader reads labelled data");
    }
    if (numWorkers < 1) {
      throw new IllegalArgumentException("numWorkers must be >= 1, got " + numWorkers);
    }
    InputPaths.requireReadable(conf, path, role);
    List<FileSplit> splits = TextSplits.splits(conf, path, ignoreEmptySplits);
    Tuple2<String, CsvLayout> header = format == Format.CSV
        ? TextSplits.firstLayout(conf, splits, spec, path, role) : null;
    return new TextInput(new TextInput(format, spec, path, role, header,
        TextSplits.assign(splits, numWorkers), splits.size()),
        new ShippedConfiguration.Value(conf));
  }

  /** The Hadoop configuration, wherever this plan runs. */
  @SuppressWarnings("unchecked")
  private Configuration hadoop() {
    return conf instanceof ShippedConfiguration.Value local ? local.conf()
        : ((Broadcast<ShippedConfiguration.Value>) conf).value().conf();
  }

  /** The number of workers the input was planned for. */
  public int numWorkers() {
    return ranges.length;
  }

  /** The input's splits (P): what the two-pass readers' DataFrame has as partitions. */
  public int inputSplits() {
    return inputSplits;
  }

  /** The width every example has, or −1 when it is the largest LIBSVM index, known at the end. */
  public int numFeatures() {
    return numFeatures;
  }

  /** The input column of each feature (CSV), in vector order; empty for LIBSVM. */
  public List<String> featureNames() {
    return layout == null ? List.of() : layout.featureNames();
  }

  /** The plan in words, for the log: how the splits reach the workers. */
  public String describe() {
    int w = ranges.length;
    String splits = inputSplits == 1 ? "1 split" : inputSplits + " splits";
    if (inputSplits >= w) {
      return String.format(Locale.ROOT, "%s read by %d workers (contiguous groups of about %d"
          + " splits, one parse per line, no shuffle)", splits, w, inputSplits / w);
    }
    return String.format(Locale.ROOT, "%s, each shared row by row by %s workers (one parse per"
        + " line, no shuffle)", splits, w % inputSplits == 0 ? String.valueOf(w / inputSplits)
            : w / inputSplits + "-" + (w / inputSplits + 1));
  }

  /**
   * One element per worker, its index, in worker order, each preferring the hosts of the
   * worker's first range: what a one-pass read maps over.
   */
  public JavaRDD<Integer> workers(JavaSparkContext jsc) {
    List<Tuple2<Integer, Seq<String>>> items = new ArrayList<>();
    for (int j = 0; j < ranges.length; j++) {
      String[] hosts = ranges[j].length == 0 ? new String[0] : ranges[j][0].hosts;
      items.add(new Tuple2<>(j, CollectionConverters
          .asScala(Arrays.asList(hosts)).toList()));
    }
    return jsc.sc().makeRDD(CollectionConverters.asScala(items).toList(),
        ClassTag$.MODULE$.apply(Integer.class)).toJavaRDD();
  }

  /**
   * Reads worker {@code worker}'s lines, sending its examples to {@code sink} until the first
   * problem, and reports what the checks need. Runs in a task; never throws for bad input.
   */
  public SplitReport read(int worker, RowSink sink) {
    LineReader reader = format == Format.CSV ? new CsvLines(sink) : new LibSvmLines(sink);
    // One context for all the worker's ranges: making one copies the whole Hadoop configuration,
    // which costs more than reading a small file (a directory of a thousand small files).
    SplitLines.Opener opener = new SplitLines.Opener(
        new TaskAttemptContextImpl(hadoop(), new TaskAttemptID()));
    SplitReport total = new SplitReport();
    for (TextSplits.Range range : ranges[worker]) {
      total.add(reader.read(opener, range));
    }
    total.incomplete = !reader.sending;
    return total;
  }

  /**
   * The driver's verdict on every worker's report: the first problem in file order (headers, bad
   * lines, no examples, labels, refused examples, in that order) as a {@link BadInputException}
   * with its file:line, else the facts of the data.
   */
  public Verdict verdict(List<SplitReport> reports) {
    Configuration hadoop = hadoop();
    String suffix = format == Format.CSV ? CsvSource.suffix(role) : LibSvmSource.suffix(role);
    SplitReport.Verdict v = SplitReport.combine(hadoop, reports, spec, path, role, suffix);
    int d = numFeatures >= 0 ? numFeatures : Math.max(0, v.maxIndex() + 1);
    return new Verdict(v.rows(), d, v.labelNote());
  }

  /**
   * What the driver knows of accepted data.
   *
   * @param rows the examples
   * @param numFeatures their width d
   * @param labelNote how labels were mapped (e.g. "labels -1/+1 mapped to 0/1"), or ""
   */
  public record Verdict(long rows, int numFeatures, String labelNote) {
  }

  /** The part of a worker's read that depends on the format: one line at a time. */
  private abstract class LineReader {
    final RowSink sink;
    /** Whether examples still go to the sink: not after the first problem of the worker. */
    boolean sending = true;
    SplitReport report;
    String file;
    long offset;

    LineReader(RowSink sink) {
      this.sink = sink;
    }

    /** Reads one range; stops at its first bad line (the next range is read all the same). */
    SplitReport read(SplitLines.Opener opener, TextSplits.Range range) {
      report = new SplitReport();
      file = range.file;
      FileSplit split = new FileSplit(new Path(range.file), range.start, range.length,
          (String[]) null);
      long next = range.start;
      long row = 0;
      try (SplitLines lines = opener.open(split)) {
        Text line = lines.line;
        while (lines.next()) {
          offset = lines.offset;
          next = offset + line.getLength() + 1;
          if (isHeader()) {
            checkHeader(line);
            continue;
          }
          if (range.shares > 1) {
            if (isBlank(line)) {
              continue;
            }
            // Every one of the file's workers numbers the rows alike, bad ones included.
            if (row++ % range.shares != range.share) {
              continue;
            }
          }
          if (!line(line)) {
            break;
          }
        }
      } catch (IOException e) {
        report.firstBadLine = Problem.earlier(report.firstBadLine,
            Problem.atLine(file, next, ReaderSupport.unreadable(file, e)));
      }
      if (report.isRefused()) {
        sending = false;
      }
      return report;
    }

    /** Whether the current line (at {@link #offset}) is a header row rather than data. */
    boolean isHeader() {
      return false;
    }

    void checkHeader(Text line) {
    }

    /** Whether a line holds no example, without parsing it. */
    abstract boolean isBlank(Text line);

    /**
     * Parses, checks, counts and sends one line.
     *
     * @return false at a bad line: the rest of the range is not read
     */
    abstract boolean line(Text line);

    /** Records a bad line at the current offset. */
    boolean bad(String reason) {
      report.firstBadLine = Problem.atLine(file, offset, reason);
      sending = false;
      return false;
    }

    /**
     * Sends one example if the sink still takes them; {@code refusal} is the sink's answer.
     */
    void refused(String refusal) {
      if (refusal != null) {
        report.refusedRow = Problem.atLine(file, offset, refusal);
        sending = false;
      }
    }

    /** The class the sink gets for {@code label}, or −1 (and nothing more is sent). */
    int classOf(double label) {
      int k = LabelCheck.provisionalClass(label, spec.numClasses());
      if (k < 0) {
        sending = false;
      }
      return k;
    }
  }

  /** LIBSVM lines: {@code label index:value ...}. */
  private final class LibSvmLines extends LineReader {
    private final LibSvmParser parser = new LibSvmParser();

    LibSvmLines(RowSink sink) {
      super(sink);
    }

    @Override
    boolean isBlank(Text line) {
      return LibSvmParser.isBlank(line);
    }

    @Override
    boolean line(Text line) {
      String error = parser.parse(line);
      if (error != null) {
        return bad(error);
      }
      if (parser.isBlank()) {
        return true;
      }
      if (numFeatures >= 0 && parser.maxIndex() >= numFeatures) {
        return bad("feature index " + (parser.maxIndex() + 1) + " exceeds the " + numFeatures
            + " features of " + spec.widthSource());
      }
      double label = parser.label();
      String why = report.labels.observe(label, spec.numClasses());
      if (why != null) {
        report.labels.badLabel(Problem.atLine(file, offset, "label " + label + " " + why));
      }
      report.maxIndex = Math.max(report.maxIndex, parser.maxIndex());
      report.rows++;
      if (sending) {
        int k = classOf(label);
        if (sending) {
          refused(sink.sparse(k, 1.0, parser.indices(), parser.values(), parser.size()));
        }
      }
      return true;
    }
  }

  /** CSV lines: each file's first line is its header row, the others values. */
  private final class CsvLines extends LineReader {
    private final CsvParser parser = new CsvParser();
    private final double[] features = new double[layout.featureIndices.length];
    /** The label and weight {@link #fieldsFromBytes} read. */
    private double labelValue;
    private double weightValue;

    CsvLines(RowSink sink) {
      super(sink);
    }

    @Override
    boolean isHeader() {
      return offset == 0;
    }

    @Override
    void checkHeader(Text line) {
      CsvParser header = new CsvParser();
      String[] names = header.split(line.toString()) != null || header.isBlank() ? null
          : new String[header.size()];
      for (int i = 0; names != null && i < names.length; i++) {
        names[i] = header.field(i);
      }
      if (!Arrays.equals(names, layout.names)) {
        report.badHeader = Problem.atLine(file, 0, "the header row differs from that of "
            + Problem.displayName(layoutFile) + "; every file must have the same columns");
        sending = false;
      }
    }

    @Override
    boolean isBlank(Text line) {
      return CsvParser.isBlank(line);
    }

    @Override
    boolean line(Text line) {
      double label;
      double weight = 1.0;
      String labelText = null;
      if (parser.splitBytes(line) && (parser.isBlank() || fieldsFromBytes())) {
        if (parser.isBlank()) {
          return true;
        }
        label = labelValue + 0.0;
        weight = weightValue;
      } else {
        // The definition of the format and of every message: the two-pass reader's steps.
        String error = parser.split(line.toString());
        if (error == null && !parser.isBlank()) {
          error = CsvSource.fieldProblem(parser, layout, true);
        }
        if (error != null) {
          return bad(error);
        }
        if (parser.isBlank()) {
          return true;
        }
        labelText = parser.field(layout.labelIndex);
        label = Double.parseDouble(labelText) + 0.0;
        for (int k = 0; k < features.length; k++) {
          features[k] = Double.parseDouble(parser.field(layout.featureIndices[k]));
        }
        if (layout.weightIndex >= 0) {
          weight = Double.parseDouble(parser.field(layout.weightIndex));
        }
      }
      String why = report.labels.observe(label, spec.numClasses());
      if (why != null) {
        String cell = labelText != null ? labelText : parser.fieldText(layout.labelIndex);
        report.labels.badLabel(Problem.atLine(file, offset, "column '"
            + NumberText.shown(layout.names[layout.labelIndex]) + "' has "
            + NumberText.shown(cell) + ", which " + why));
      }
      report.rows++;
      if (sending) {
        int k = classOf(label);
        if (sending) {
          refused(sink.dense(k, weight, features));
        }
      }
      return true;
    }

    /**
     * The fast path's fields: the count, and every number the example needs, from the bytes;
     * false (the string path decides, and describes) for anything out of the ordinary.
     */
    private boolean fieldsFromBytes() {
      if (parser.size() != layout.names.length) {
        return false;
      }
      labelValue = parser.decimalAt(layout.labelIndex);
      weightValue = layout.weightIndex < 0 ? 1.0 : parser.decimalAt(layout.weightIndex);
      if (!Double.isFinite(labelValue) || !Double.isFinite(weightValue)) {
        return false;
      }
      for (int k = 0; k < features.length; k++) {
        double v = parser.decimalAt(layout.featureIndices[k]);
        if (!Double.isFinite(v)) {
          return false;
        }
        features[k] = v;
      }
      return true;
    }
  }
}
