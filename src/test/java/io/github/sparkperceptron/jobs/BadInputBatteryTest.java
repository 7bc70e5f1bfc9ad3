package io.github.sparkperceptron.jobs;

import static io.github.sparkperceptron.jobs.JobFixtures.BREAST_TEST;
import static io.github.sparkperceptron.jobs.JobFixtures.BREAST_TRAIN;
import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.array_repeat;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.io.LibSvmSource;
import io.github.sparkperceptron.internal.plan.Settings;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.functions;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input to the three jobs, one case per kind of mistake: each must end with exit code 2, one
 * line on stderr that names the problem (checked by an exact fragment), no stack trace, and no
 * output left behind that could pass for a complete one. The table of cases and messages is
 * written to target/bad-input-table.md.
 */
class BadInputBatteryTest {
  @TempDir
  static Path dir;
  private static Path model;
  private static final List<String> TABLE = new ArrayList<>();

  /** One bad invocation. */
  private static final class Case {
    final String job;
    final String what;
    final String expected;
    final List<Path> outputs;
    final String[] args;

    Case(String job, String what, String expected, List<Path> outputs, String... args) {
      this.job = job;
      this.what = what;
      this.expected = expected;
      this.outputs = outputs;
      this.args = args;
    }

    final List<String> alsoExpected = new ArrayList<>();

    /** More fragments the line must contain. */
    Case alsoExpect(String... fragments) {
      alsoExpected.addAll(Arrays.asList(fragments));
      return this;
    }

    Callable<Integer> command() {
      switch (job) {
        case "train":
          return new TrainJob();
        case "predict":
          return new PredictJob();
        default:
          return new EvaluateJob();
      }
    }
  }

  @BeforeAll
  static void saveModels() throws IOException {
    SparkSession spark = SparkTestSupport.spark();
    model = dir.resolve("model");
    JobFixtures.trainAndSave(BREAST_TRAIN, model);
    new LogisticRegression().setMaxIter(1)
        .fit(LibSvmSource.read(spark, BREAST_TRAIN.toString(), -1, "data").frame())
        .write().save(dir.resolve("logistic").toString());

    damagedCopy("no-metadata", m -> delete(m.resolve("metadata")));
    damagedCopy("no-data", m -> delete(m.resolve("data")));
    damagedCopy("data-is-a-file", m -> {
      delete(m.resolve("data"));
      write(m.resolve("data"), "not a directory");
    });
    damagedCopy("garbage-metadata", m -> {
      delete(m.resolve("metadata"));
      write(m.resolve("metadata/part-00000"), "{ this is not json");
    });
    damagedCopy("garbage-data", m -> {
      try (Stream<Path> parts = Files.list(m.resolve("data"))) {
        for (Path p : (Iterable<Path>) parts::iterator) {
          if (p.getFileName().toString().endsWith(".parquet")) {
            write(p, "PAR1 truncated garbage");
          }
        }
      }
    });
    write(dir.resolve("model-file"), "a file, not a model directory");
    checkpointFixtures();
  }

  /** The test property that makes partition epochs fail (train.FaultInjection). */

  /**
   * A real checkpoint, from a train job whose epoch 3 fails (exit 1, like a dying driver),
   * copied into directories holding it truncated, bit-flipped, and beside a planted newer one.
   * Hadoop's local file system checks its own .crc sidecar first; it is removed from the damaged
   * copies, as on a file system without one, so that the format's own checks answer.
   */
  private static void checkpointFixtures() throws IOException {
    SparkSession spark = SparkTestSupport.spark();
    Path good = dir.resolve("ckpt-good");
    spark.sparkContext().setLocalProperty(Settings.TEST_INJECT_FAILURE, "from-epoch:3");
    JobRun aborted;
    try {
      aborted = JobRun.of(new TrainJob(), checkpointArgs(good, out("ckpt-model-0")));
    } finally {
      spark.sparkContext().setLocalProperty(Settings.TEST_INJECT_FAILURE, null);
    }
    assertEquals(1, aborted.exitCode, aborted.toString());
    byte[] bytes = Files.readAllBytes(good.resolve("epoch-000002.ckpt"));

    Path truncated = Files.createDirectories(dir.resolve("ckpt-truncated"));
    Files.write(truncated.resolve("epoch-000002.ckpt"), Arrays.copyOf(bytes, bytes.length / 2));
    Path flipped = Files.createDirectories(dir.resolve("ckpt-flipped"));
    byte[] flip = bytes.clone();
    flip[bytes.length / 2] ^= 0x08;
    Files.write(flipped.resolve("epoch-000002.ckpt"), flip);
    Path planted = Files.createDirectories(dir.resolve("ckpt-planted"));
    Files.write(planted.resolve("epoch-000002.ckpt"), bytes);
    try (ObjectOutputStream o = new ObjectOutputStream(
        Files.newOutputStream(planted.resolve("epoch-000009.ckpt")))) {
      o.writeInt(1);
      o.writeUTF("the fingerprint an attacker copied from a real checkpoint");
      o.writeObject(new Trap());
    }
  }

  /** What a planted checkpoint smuggles in: a class whose deserialization leaves a trace. */
  static final class Trap implements Serializable {
    private static final long serialVersionUID = 1L;
    static volatile boolean deserialized;

    private void readObject(ObjectInputStream in)
        throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      deserialized = true;
    }
  }

  private static String[] checkpointArgs(Path checkpoints, String model, String... more) {
    List<String> args = new ArrayList<>(List.of("--train", BREAST_TRAIN.toString(), "--model",
        model, "--max-iter", "6", "--tol", "0", "--partitions", "2", "--checkpoint-dir",
        checkpoints.toString(), "--checkpoint-interval", "1"));
    args.addAll(List.of(more));
    return args.toArray(new String[0]);
  }

  @AfterAll
  static void writeTable() throws IOException {
    Path target = TestData.projectRoot().resolve("target/bad-input-table.md");
    List<String> lines = new ArrayList<>(List.of("| job | bad input | stderr (exit 2) |",
        "|---|---|---|"));
    lines.addAll(TABLE);
    Files.createDirectories(target.getParent());
    Files.write(target, lines);
  }

  private interface Damage {
    void apply(Path modelCopy) throws IOException;
  }

  private static void damagedCopy(String name, Damage damage) throws IOException {
    Path copy = dir.resolve(name);
    try (Stream<Path> walk = Files.walk(model)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        Path to = copy.resolve(model.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(to);
        } else {
          Files.copy(p, to);
        }
      }
    }
    damage.apply(copy);
  }

  private static void delete(Path p) throws IOException {
    try (Stream<Path> walk = Files.walk(p)) {
      walk.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }

  private static void write(Path p, String text) {
    try {
      Files.createDirectories(p.getParent());
      Files.writeString(p, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String file(String name, String text) {
    Path p = dir.resolve("data").resolve(name);
    write(p, text);
    return p.toString();
  }

  private static String fileBytes(String name, byte[] bytes) {
    Path p = dir.resolve("data").resolve(name);
    try {
      Files.createDirectories(p.getParent());
      Files.write(p, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p.toString();
  }

  /**
   * 4 lines of LIBSVM gzipped, cut in the middle of the compressed data: the first lines
   * decompress, then the stream ends. (Fixed bytes, so the case's message is fixed too.)
   */
  private static String truncatedGzip() {
    Path p = dir.resolve("data").resolve("truncated.libsvm.gz");
    if (!Files.exists(p)) {
      StringBuilder text = new StringBuilder();
      Random rnd = new Random(3);
      for (int i = 0; i < 400; i++) {
        text.append(i % 2).append(" 1:").append(rnd.nextInt(1000)).append(" 2:")
            .append(rnd.nextInt(1000)).append('\n');
      }
      ByteArrayOutputStream gz = new ByteArrayOutputStream();
      try (GZIPOutputStream o = new GZIPOutputStream(gz)) {
        o.write(text.toString().getBytes(StandardCharsets.US_ASCII));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      byte[] whole = gz.toByteArray();
      fileBytes("truncated.libsvm.gz", Arrays.copyOf(whole, whole.length / 2));
    }
    return p.toString();
  }

  /** Three rows of the test data as Parquet, with the given columns. */
  private static String parquet(String name, Column... columns) {
    Path p = dir.resolve("data").resolve(name);
    SparkSession spark = SparkTestSupport.spark();
    spark.read().format("libsvm").option("numFeatures", "30").load(BREAST_TEST.toString())
        .limit(3).select(columns).coalesce(1).write().parquet(p.toString());
    return p.toString();
  }

  private static String out(String name) {
    return dir.resolve("out").resolve(name).toString();
  }

  private static List<Path> paths(String... names) {
    List<Path> list = new ArrayList<>();
    for (String n : names) {
      list.add(Path.of(n));
    }
    return list;
  }

  /** Thirty comma-separated names x1..x30. */
  private static String xs(int d) {
    StringBuilder sb = new StringBuilder("x1");
    for (int j = 2; j <= d; j++) {
      sb.append(",x").append(j);
    }
    return sb.toString();
  }

  private static List<Case> cases() {
    String m = model.toString();
    String train = BREAST_TRAIN.toString();
    String test = BREAST_TEST.toString();
    String csvHeader = "label," + xs(30) + "\n";
    String csvRow = "1" + ",0.5".repeat(30) + "\n";
    List<Case> c = new ArrayList<>();

    // --- malformed text input
    String unordered = file("unordered.libsvm", "1 1:0.5\n0 2:0.1 1:0.3\n");
    c.add(new Case("train", "LIBSVM line with decreasing indices", unordered
        + ":2: feature index 1 follows 2; indices must increase strictly within a line",
        paths(out("m1")), "--train", unordered, "--model", out("m1")));
    String letters = file("letters.libsvm", "1 1:0.5\n0 1:0.1 2:abc\n");
    c.add(new Case("evaluate", "LIBSVM value that is not a number", letters
        + ":2: value 'abc' of feature 2 is not a number", paths(out("e1.json")),
        "--model", m, "--input", letters, "--metrics", out("e1.json")));
    String pair = file("pair.libsvm", "1 1:0.5 7\n");
    c.add(new Case("predict", "LIBSVM token without a colon", pair
        + ":1: '7' is not an index:value pair", paths(out("p1")),
        "--model", m, "--input", pair, "--output", out("p1")));
    String utf8 = fileBytes("utf8.libsvm", new byte[] {'1', ' ', '1', ':', (byte) 0xC3, '\n'});
    c.add(new Case("train", "LIBSVM value with a bad UTF-8 byte", utf8
        + ":1: value '\uFFFD' of feature 1 is not a number", paths(out("m2")),
        "--train", utf8, "--model", out("m2")));
    String badCell = file("cell.csv", csvHeader + csvRow + "0" + ",1".repeat(29) + ",abc\n");
    c.add(new Case("train", "CSV cell that is not a number", badCell
        + ":3: column 'x30' has 'abc', not a number", paths(out("m3")),
        "--train", badCell, "--format", "csv", "--model", out("m3")));
    String emptyCell = file("empty-cell.csv", csvHeader + csvRow + "0,," + "1,".repeat(28)
        + "1\n");
    c.add(new Case("evaluate", "CSV cell that is empty", emptyCell
        + ":3: column 'x1' is empty", paths(out("e2.json")),
        "--model", m, "--input", emptyCell, "--format", "csv", "--metrics", out("e2.json")));
    String shortLine = file("short.csv", csvHeader + csvRow + "1,2,3\n");
    c.add(new Case("predict", "CSV line with too few fields", shortLine
        + ":3: the line has 3 fields, but the header row has 31 columns", paths(out("p2")),
        "--model", m, "--input", shortLine, "--format", "csv", "--output", out("p2")));
    String quote = file("quote.csv", "label,x\n1,\"2\n");
    c.add(new Case("train", "CSV quoted field not closed", quote
        + ":2: the quoted field 2 is not closed (a quoted field may not span lines)",
        paths(out("m4")), "--train", quote, "--format", "csv", "--model", out("m4")));
    String noLabel = file("nolabel.csv", "y,x\n1,2\n");
    c.add(new Case("train", "CSV header without the label column", noLabel
        + ":1: the header row has no label column 'label' (--label-col); its columns are [y, x]",
        paths(out("m5")), "--train", noLabel, "--format", "csv", "--model", out("m5")));

    String csvAsLibsvm = file("rows.csv", csvHeader + csvRow);
    c.add(new Case("train", "CSV file read as LIBSVM (the default --format)", csvAsLibsvm
        + ":1: ", paths(out("m-csv")), "--train", csvAsLibsvm, "--model", out("m-csv"))
        .alsoExpect("; did you mean --format csv?"));

    // --- missing or empty input
    String missing = dir.resolve("data/none.libsvm").toString();
    c.add(new Case("train", "input path that does not exist", "The training data (--train) path '"
        + missing + "' does not exist", paths(out("m6")), "--train", missing, "--model",
        out("m6")));
    String empty = file("empty.libsvm", "");
    c.add(new Case("predict", "empty input file", "The input data (--input) path '" + empty
        + "' holds no data (0 bytes)", paths(out("p3")),
        "--model", m, "--input", empty, "--output", out("p3")));
    String comments = file("comments.libsvm", "# only a comment\n\n");
    c.add(new Case("evaluate", "input without examples", "The evaluation data (--input) at '"
        + comments + "' hold no examples", paths(out("e3.json")),
        "--model", m, "--input", comments, "--metrics", out("e3.json")));
    String headerOnly = file("header-only.csv", csvHeader);
    c.add(new Case("train", "CSV file with only a header", "The training data (--train) at '"
        + headerOnly + "' hold no examples", paths(out("m7")),
        "--train", headerOnly, "--format", "csv", "--model", out("m7")));

    // --- labels
    String fraction = file("fraction.libsvm", "0 1:1\n0.5 1:2\n");
    c.add(new Case("train", "label that is not a class index", fraction
        + ":2: label 0.5 is not a class index 0, 1, ..., K-1", paths(out("m8")),
        "--train", fraction, "--model", out("m8")));
    String minusTwo = file("minus-two.csv", "label,x\n1,1\n-1,2\n-2,3\n");
    c.add(new Case("train", "negative CSV label in a file that is not -1/+1", minusTwo
        + ":3: column 'label' has -1, which is not a class index", paths(out("m9")),
        "--train", minusTwo, "--format", "csv", "--model", out("m9")));
    String three = file("three.libsvm", "0 1:1\n1 1:1\n2 1:1\n");
    c.add(new Case("evaluate", "label beyond the model's classes", three
        + ":3: label 2.0 is not a class of the model, which has 2 classes (0..1)",
        paths(out("e4.json")), "--model", m, "--input", three, "--metrics", out("e4.json")));
    String huge = file("huge.libsvm", "0 1:1\n20000 1:1\n");
    c.add(new Case("train", "label too large to infer the classes from",
        "more than 10000 classes cannot be inferred from label values", paths(out("m10")),
        "--train", huge, "--model", out("m10")));
    String stringLabel = parquet("string-label", col("label").cast("string").as("label"),
        col("features"));
    c.add(new Case("evaluate", "Parquet label column of type string",
        "Column 'label' (--label-col) has type string, not a number type",
        paths(out("e5.json")), "--model", m, "--input", stringLabel, "--format", "parquet",
        "--metrics", out("e5.json")));

    // --- non-finite features
    String nan = file("nan.libsvm", "0 1:1\n1 1:NaN\n");
    c.add(new Case("train", "LIBSVM NaN feature", nan
        + ":2: value NaN of feature 1 is not a finite number", paths(out("m11")),
        "--train", nan, "--model", out("m11")));
    String inf = file("inf.csv", "label,a,b\n0,1,2\n1,Infinity,2\n");
    c.add(new Case("train", "CSV infinite feature", inf
        + ":3: column 'a' has 'Infinity', not a finite number", paths(out("m12")),
        "--train", inf, "--format", "csv", "--model", out("m12")));
    String overflow = file("overflow.libsvm", "0 1:1e999\n");
    c.add(new Case("predict", "LIBSVM value that overflows to infinity", overflow
        + ":1: value 1e999 of feature 1 is not a finite number", paths(out("p4")),
        "--model", m, "--input", overflow, "--output", out("p4")));
    String nanVector = parquet("nan-vector", col("label"), functions.array_to_vector(
        array_repeat(lit(Double.NaN), 30)).as("features"));
    c.add(new Case("train", "Parquet vector holding NaN",
        ", row 1: column 'features' has NaN at feature index 0, not a finite number",
        paths(out("m13")), "--train", nanVector, "--format", "parquet", "--model", out("m13")));

    // --- feature counts
    String wide = file("wide.libsvm", "1 31:1\n");
    c.add(new Case("evaluate", "LIBSVM index beyond the model's features", wide
        + ":1: feature index 31 exceeds the 30 features of the model", paths(out("e6.json")),
        "--model", m, "--input", wide, "--metrics", out("e6.json")));
    String wideTest = file("wide-test.libsvm", "0 1:1\n1 1:1 40:2\n");
    c.add(new Case("train", "test data wider than the training data", wideTest
        + ":2: feature index 40 exceeds the 30 features of the training data", paths(out("m14")),
        "--train", train, "--test", wideTest, "--model", out("m14")));
    String narrowCsv = file("narrow.csv", "label,a,b,c,d\n1,1,2,3,4\n");
    c.add(new Case("predict", "CSV with fewer feature columns than the model", narrowCsv
        + ":1: there are 4 feature columns, but the model has 30 features", paths(out("p5")),
        "--model", m, "--input", narrowCsv, "--format", "csv", "--output", out("p5")));
    String narrowVector = parquet("narrow-vector", col("label"),
        functions.array_to_vector(array(lit(1.0), lit(2.0))).as("features"));
    c.add(new Case("evaluate", "Parquet vectors narrower than the model",
        ", row 1: column 'features' holds a vector of size 2, but the model has 30 features",
        paths(out("e7.json")), "--model", m, "--input", narrowVector, "--format", "parquet",
        "--metrics", out("e7.json")));

    // --- models
    String[][] models = {
        {"model directory that does not exist", dir.resolve("no-model").toString(),
            "The model (--model) '" + dir.resolve("no-model") + "' does not exist"},
        {"a file passed as the model", dir.resolve("model-file").toString(),
            "The model (--model) '" + dir.resolve("model-file") + "' is a file"},
        {"model without metadata/", dir.resolve("no-metadata").toString(),
            "Cannot load the model (--model) '" + dir.resolve("no-metadata") + "': '"
                + dir.resolve("no-metadata/metadata") + "' does not exist"},
        {"model without data/", dir.resolve("no-data").toString(),
            "Cannot load the model (--model) '" + dir.resolve("no-data") + "': '"
                + dir.resolve("no-data/data") + "' does not exist"},
        {"model whose data/ is a file", dir.resolve("data-is-a-file").toString(),
            "Cannot load the model (--model) '" + dir.resolve("data-is-a-file") + "': '"
                + dir.resolve("data-is-a-file/data") + "' is not readable model data"},
        {"model whose metadata is not JSON", dir.resolve("garbage-metadata").toString(),
            "Cannot load the model (--model) '" + dir.resolve("garbage-metadata") + "': '"
                + dir.resolve("garbage-metadata") + "' does not hold a readable saved Spark ML"
                + " stage: its metadata could not be parsed"},
        {"model whose data file is corrupt", dir.resolve("garbage-data").toString(),
            "Cannot load the model (--model) '" + dir.resolve("garbage-data") + "': '"
                + dir.resolve("garbage-data/data") + "' is not readable model data"},
        {"a saved LogisticRegressionModel", dir.resolve("logistic").toString(),
            "Cannot load the model (--model) '" + dir.resolve("logistic") + "': '"
                + dir.resolve("logistic") + "' holds a saved"
                + " org.apache.spark.ml.classification.LogisticRegressionModel, not a"},
    };
    for (int i = 0; i < models.length; i++) {
      boolean predict = i % 2 == 0;
      String output = predict ? out("pm" + i) : out("em" + i + ".json");
      c.add(new Case(predict ? "predict" : "evaluate", models[i][0], models[i][2],
          paths(output), "--model", models[i][1], "--input", test,
          predict ? "--output" : "--metrics", output));
    }

    // --- existing outputs
    c.add(new Case("train", "existing model directory without --overwrite", "The output --model '"
        + m + "' already exists; pass --overwrite to replace it, or choose another path",
        List.of(), "--train", train, "--model", m));
    String oldMetrics = file("old-metrics.json", "{}");
    c.add(new Case("evaluate", "existing metrics file without --overwrite", "The output --metrics"
        + " '" + oldMetrics + "' already exists", List.of(), "--model", m, "--input", test,
        "--metrics", oldMetrics));
    c.add(new Case("predict", "existing output without --overwrite", "The output --output '"
        + dir.resolve("data") + "' already exists", List.of(), "--model", m, "--input", test,
        "--output", dir.resolve("data").toString()));
    String taken = file("taken.csv", "prediction," + xs(30) + "\n" + csvRow);
    c.add(new Case("predict", "input that already has a prediction column", "The input data"
        + " (--input) already have a column 'prediction'", paths(out("p6")), "--model", m,
        "--input", taken, "--format", "csv", "--feature-cols", xs(30), "--output", out("p6")));

    // --- flags
    c.add(new Case("train", "unknown flag", "Unknown option: '--bogus'", paths(out("m15")),
        "--train", train, "--model", out("m15"), "--bogus"));
    // The flag alone, not picocli's "Unknown options: '--threshold', '1'": its value is no option.
    c.add(new Case("predict", "unknown flag", "Unknown option: '--threshold' (see", paths(out("p7")),
        "--model", m, "--input", test, "--output", out("p7"), "--threshold", "1"));
    c.add(new Case("evaluate", "missing required flag",
        "Missing required option: '--input=PATH'", List.of(), "--model", m));
    c.add(new Case("train", "flag value of the wrong type",
        "Invalid value for option '--max-iter': 'ten' is not an int", paths(out("m16")),
        "--train", train, "--model", out("m16"), "--max-iter", "ten"));
    c.add(new Case("train", "flag value out of range", "--max-iter must be >= 0, got -3",
        paths(out("m17")), "--train", train, "--model", out("m17"), "--max-iter", "-3"));
    c.add(new Case("train", "unknown update rule",
        "--update-rule must be one of [perceptron, pa, pa1, pa2], got 'mira'", paths(out("m18")),
        "--train", train, "--model", out("m18"), "--update-rule", "mira"));
    c.add(new Case("predict", "unknown output format", "Invalid value for option"
        + " '--output-format': expected one of [parquet, csv, json] (case-sensitive) but was"
        + " 'xml'", paths(out("p8")), "--model", m, "--input", test, "--output", out("p8"),
        "--output-format", "xml"));
    c.add(new Case("evaluate", "unknown input format", "Invalid value for option '--format':"
        + " expected one of [libsvm, csv, parquet] (case-sensitive) but was 'svm'",
        paths(out("e8.json")), "--model", m, "--input", test, "--format", "svm", "--metrics",
        out("e8.json")));
    c.add(new Case("train", "column flag with LIBSVM input", "--label-col, --feature-cols and"
        + " --features-col name CSV or Parquet columns; LIBSVM input (--format libsvm) has none",
        paths(out("m19")), "--train", train, "--model", out("m19"), "--label-col", "y"));
    c.add(new Case("train", "negative partitions", "--partitions must be >= 0, got -1",
        paths(out("m20")), "--train", train, "--model", out("m20"), "--partitions", "-1"));
    c.add(new Case("predict", "Parquet features column missing", "There is no feature vector"
        + " column 'vec' (--features-col); the columns are [label, features]", paths(out("p9")),
        "--model", m, "--input", parquet("plain", col("label"), col("features")), "--format", "parquet",
        "--features-col", "vec", "--output", out("p9")));
    // --- checkpoints (train --resume reads the latest one)
    for (String[] ck : new String[][] {
        {"truncated checkpoint", "ckpt-truncated", "it is truncated"},
        {"bit-flipped checkpoint", "ckpt-flipped", "it is damaged: its checksum does not match"
            + " its content"},
        {"planted Java-serialized checkpoint", "ckpt-planted", "epoch-000009.ckpt': it is a Java"
            + " serialization stream, not a checkpoint"}}) {
      String model = out("ck-" + ck[1]);
      c.add(new Case("train", ck[0], "Cannot resume from the checkpoint '", paths(model),
          checkpointArgs(dir.resolve(ck[1]), model, "--resume")).alsoExpect(ck[2],
          "Delete it to start the training over"));
    }

    // --- sizes
    String wideFile = file("wide-300m.libsvm", "1 300000000:1\n0 1:1\n");
    c.add(new Case("train", "LIBSVM file 300,000,000 features wide", "Training needs about",
        paths(out("m21")), "--train", wideFile, "--model", out("m21"))
        .alsoExpect("MiB on the driver", "with d = 300,000,000 features and K = 2 classes",
            "--driver-memory", "HashingTF"));
    // The line number depends on how much of the cut stream the decompressor delivers.
    c.add(new Case("train", "truncated gzip file", truncatedGzip() + ":", paths(out("m22")),
        "--train", truncatedGzip(), "--model", out("m22")).alsoExpect(": the compressed file"
        + " ends early or is damaged (EOFException: Unexpected end of input stream), so nothing"
        + " from here on can be read; copy or compress it again"));

    String notParquet = test;
    c.add(new Case("evaluate", "text file read as Parquet", "Cannot read the evaluation data"
        + " (--input) '" + notParquet + "' as Parquet: ", paths(out("e9.json")), "--model", m,
        "--input", notParquet, "--format", "parquet", "--metrics", out("e9.json")));
    return c;
  }

  @TestFactory
  Stream<DynamicTest> everyBadInputGivesOneLineAndExitTwoAndNoOutput() {
    return cases().stream().map(c -> DynamicTest.dynamicTest(c.job + ": " + c.what, () -> {
      List<String> before = outputState(c);
      JobRun run = JobRun.of(c.command(), c.args);
      String line = run.err.strip();
      TABLE.add("| " + c.job + " | " + c.what + " | `" + line.replace("|", "\\|") + "` |");
      assertEquals(2, run.exitCode, run.toString());
      assertEquals(1, line.lines().count(), "one line on stderr: " + run.err);
      assertTrue(line.startsWith(c.job + ": error: "), line);
      assertTrue(line.contains(c.expected), "expected '" + c.expected + "' in: " + line);
      for (String fragment : c.alsoExpected) {
        assertTrue(line.contains(fragment), "expected '" + fragment + "' in: " + line);
      }
      assertFalse(Trap.deserialized, "a planted checkpoint was deserialized");
      assertFalse(run.err.contains("\tat ") || run.err.contains("Caused by"),
          "no stack trace: " + run.err);
      for (Path output : c.outputs) {
        assertFalse(Files.exists(output), "no output may be left at " + output);
      }
      assertEquals(before, outputState(c), "existing outputs stay as they were");
      try (Stream<Path> siblings = Files.list(dir.resolve("out"))) {
        assertFalse(siblings.anyMatch(p -> p.getFileName().toString().contains(".tmp-")),
            "no temporary output may be left behind");
      }
    }));
  }

  /**
   * One line of 100 MB without a newline (what a careless user passes: a minified blob, a binary
   * file): Hadoop's reader holds the whole line, the check pass refuses its first token, and the
   * message shows only the token's start. Made in the temporary directory and deleted at once.
   */
  @Test
  void aFileThatIsOneLineOf100MegabytesIsOneLineOfError() throws IOException {
    Path big = dir.resolve("one-line.libsvm");
    try {
      try (FileChannel ch = FileChannel.open(big,
          StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        ByteBuffer mb = ByteBuffer.allocate(1 << 20);
        Arrays.fill(mb.array(), (byte) 'x');
        for (int i = 0; i < 100; i++) {
          mb.clear();
          while (mb.hasRemaining()) {
            ch.write(mb);
          }
        }
      }
      JobRun run = JobRun.of(new TrainJob(), "--train", big.toString(), "--model", out("m23"));
      String line = run.err.strip();
      TABLE.add("| train | one line of 100 MB, no newline | `" + line + "` |");
      assertEquals(2, run.exitCode, run.toString());
      assertEquals(1, line.lines().count(), run.err);
      assertTrue(line.startsWith("train: error: " + big + ":1: label 'xxxxxxxx"), line);
      assertTrue(line.length() < 400, "the token is shown cut short: " + line.length());
      assertFalse(Files.exists(Path.of(out("m23"))));
    } finally {
      Files.deleteIfExists(big);
    }
  }

  /**
   * A directory of 1,000 one-row files, as the job reads it by default: every file is an input
   * split, read and checked like any other, the workers (one per task slot, not one per file)
   * each read a contiguous run of them in one task, and the job trains. (The DataFrame path,
   * which --partitions, --validation and Parquet take, still runs one task per file in each pass
   * over the input: 40 s instead of 10 s for these files on 2 cores; BENCHMARKS.md, issue 31.)
   */
  @Test
  // A thousand files written and opened (5 s in a test JVM): `mvn verify` runs it, `mvn test` not.
  @Tag("slow")
  void aDirectoryOfAThousandSmallFilesTrains() throws IOException {
    Path many = Files.createDirectories(dir.resolve("many-small"));
    Random rnd = new Random(11);
    int files = 1_000;
    for (int f = 0; f < files; f++) {
      // Separable with a margin: label 1 when x1 > x2 + 0.1, label 0 when x1 < x2 - 0.1.
      double x1;
      double x2;
      do {
        x1 = rnd.nextDouble();
        x2 = rnd.nextDouble();
      } while (Math.abs(x1 - x2) < 0.1);
      Files.writeString(many.resolve(String.format(Locale.ROOT, "part-%05d.libsvm",
          f)), (x1 > x2 ? 1 : 0) + " 1:" + x1 + " 2:" + x2 + "\n");
    }
    String metrics = out("many.json");
    JobRun run = JobRun.of(new TrainJob(), "--train", many.toString(), "--model",
        out("m24"), "--max-iter", "5", "--calibration", "none", "--metrics", metrics);
    TABLE.add("| train | directory of 1,000 one-row files | trains (exit " + run.exitCode
        + ") |");
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.contains("on 1,000 rows x 2 features"), run.out);
    com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind
        .ObjectMapper().readTree(Path.of(metrics).toFile());
    assertEquals(files, json.get("train").get("rows").asLong());
    assertEquals(files, json.get("data").get("partitions").asInt(), "a split per file");
    // Separable with margin 0.1/√2 (by x1 − x2) within radius √3 (with the bias), so the
    // perceptron stops updating after at most R²/γ² = 600 mistakes; 0.9 only asks that it
    // learned (chance is about 0.5), whatever the mixing of 2 workers costs.
    assertTrue(json.get("train").get("accuracy").asDouble() > 0.9, json.toString());
  }

  /** The files under every existing path named after an output flag, to check they are unchanged. */
  private static List<String> outputState(Case c) throws IOException {
    List<String> state = new ArrayList<>();
    Files.createDirectories(dir.resolve("out"));
    List<String> args = Arrays.asList(c.args);
    for (String flag : new String[] {"--model", "--output", "--metrics"}) {
      int i = args.indexOf(flag);
      boolean isOutput = !flag.equals("--model") || c.job.equals("train");
      if (i >= 0 && i + 1 < args.size() && isOutput) {
        Path p = Path.of(args.get(i + 1));
        if (Files.isDirectory(p)) {
          for (String f : JobFixtures.filesUnder(p)) {
            state.add(f + ":" + Files.size(p.resolve(f)));
          }
        } else if (Files.exists(p)) {
          state.add(p + ":" + new String(Files.readAllBytes(p), StandardCharsets.UTF_8));
        }
      }
    }
    return state;
  }

}
