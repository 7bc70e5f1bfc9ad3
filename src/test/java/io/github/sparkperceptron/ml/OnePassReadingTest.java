package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.io.CsvSource;
import io.github.sparkperceptron.internal.io.LabeledData;
import io.github.sparkperceptron.internal.io.LibSvmSource;
import io.github.sparkperceptron.internal.io.ReadSpec;
import io.github.sparkperceptron.internal.io.TextInput;
import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jobs' one-pass reading (a text input parsed by the workers straight into their blocks,
 * {@link TrainingInput#fromText}) trains the very model {@code fit} trains on a DataFrame of the
 * same rows in the same workers, bit for bit: the DataFrame the two-pass readers make when the
 * input has at least as many splits as workers or only one (so the jobs' models are unchanged
 * there), and for 2 ≤ P &lt; W splits one whose partitions deal each split over its own workers.
 */
class OnePassReadingTest {
  @TempDir
  static Path dir;

  private static SparkSession spark;
  private static JavaSparkContext jsc;

  @BeforeAll
  static void session() {
    spark = SparkTestSupport.spark();
    jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
  }

  private static final String MAX_SPLIT = "mapreduce.input.fileinputformat.split.maxsize";

  private static PerceptronClassifier estimator(int workers) {
    return new PerceptronClassifier().setNumWorkers(workers).setMaxIter(3).setTol(0);
  }

  /** The model of a one-pass read of {@code path} by {@code workers} workers. */
  private static PerceptronClassificationModel onePass(PerceptronClassifier estimator,
      String path, TextInput.Format format, ReadSpec spec, int workers) {
    TextInput text = TextInput.plan(spark, path, format, spec, "training data", workers);
    try (TrainingInput input = TrainingInput.fromText(jsc, text,
        TrainingPlan.forFit(jsc, EngineBridge.config(estimator)))) {
      return EngineBridge.fit(estimator, input);
    }
  }

  private static void assertSameModel(PerceptronClassificationModel expected,
      PerceptronClassificationModel actual, String what) {
    assertEquals(expected.numFeatures(), actual.numFeatures(), what);
    assertEquals(expected.numClasses(), actual.numClasses(), what);
    double[] a = expected.toStateWeights();
    double[] b = actual.toStateWeights();
    long[] bitsA = new long[a.length];
    long[] bitsB = new long[b.length];
    for (int i = 0; i < a.length; i++) {
      bitsA[i] = Double.doubleToRawLongBits(a[i]);
      bitsB[i] = Double.doubleToRawLongBits(b[i]);
    }
    assertArrayEquals(bitsA, bitsB, what + ": the same weights, bit for bit");
    assertArrayEquals(expected.summary().mistakesHistory(), actual.summary().mistakesHistory(),
        what);
    assertEquals(expected.isVoted(), actual.isVoted(), what);
    // The same calibration rows (held out by a hash of each row's class and non-zero features,
    // whatever the input's form) or the same folds: the same calibrator, bit for bit.
    assertEquals(expected.calibrator().method(), actual.calibrator().method(), what);
    assertArrayEquals(expected.calibrator().parameters(), actual.calibrator().parameters(), 0.0,
        what + ": the same calibrator");
    if (expected.isVoted()) {
      // The vote's every vector and weight: the same raw predictions on every training row.
      Dataset<Row> rows = spark.read().format("libsvm").option("numFeatures",
          String.valueOf(expected.numFeatures())).load(votedData);
      List<Row> rawA = expected.transform(rows).select("rawPrediction").collectAsList();
      List<Row> rawB = actual.transform(rows).select("rawPrediction").collectAsList();
      assertEquals(rawA, rawB, what + ": the same vote");
    }
  }

  /** The file a voted model is checked on. */
  private static String votedData;

  @Test
  void withAtLeastAsManySplitsAsWorkersTheModelIsTheTwoPassReadersOne() {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    String old = conf.get(MAX_SPLIT);
    try {
      // Splits of at most 20 kB: 8 of breast cancer, 1 of iris; pendigits (589 kB) in 120 kB
      // splits: 5, for as many workers (in 20 kB ones it was 30 workers: the same property at six
      // times the tasks).
      for (String[] set : new String[][] {{"breast_cancer", "average", "20000"},
          {"iris", "vote", "20000"}, {"pendigits", "none", "120000"}}) {
        conf.setLong(MAX_SPLIT, Long.parseLong(set[2]));
        String path = TestData.sharedData(set[0], "train.libsvm").toString();
        votedData = path;
        LabeledData frame = LibSvmSource.read(spark, path, ReadSpec.labelled(), "training data");
        int splits = frame.frame().rdd().getNumPartitions();
        assertEquals(splits, TextInput.plan(spark, path, TextInput.Format.LIBSVM,
            ReadSpec.labelled(), "training data", 1).inputSplits(), set[0] + ": the same splits");
        assertTrue(set[0].equals("iris") || splits >= 5, set[0] + ": " + splits + " splits");
        // The weights and the vote at every worker count; the calibrator (its held-out rows a
        // function of each row alone, its fold models fits like the ones compared here) where
        // the data are read by the most workers, in splits: on small data the default cross-fits
        // three fold models per fit, and the property does not depend on the worker count.
        int[] counts = set[0].equals("breast_cancer") ? new int[] {1, 2, splits}
            : splits > 1 ? new int[] {1, splits} : new int[] {1};
        for (int workers : counts) {
          PerceptronClassifier estimator = estimator(workers).setAveraging(set[1]);
          if (workers != counts[counts.length - 1]) {
            estimator.setCalibration("none");
          }
          assertSameModel(estimator.fit(frame.frame()), onePass(estimator, path,
              TextInput.Format.LIBSVM, ReadSpec.labelled(), workers),
              set[0] + ", " + splits + " splits, " + workers + " workers");
        }
      }
    } finally {
      if (old == null) {
        conf.unset(MAX_SPLIT);
      } else {
        conf.set(MAX_SPLIT, old);
      }
    }
  }

  /**
   * The rows of a DataFrame whose partitions are an input's splits, dealt as the one-pass reader
   * deals them over more workers than splits: split p's row r to worker ⌈p·W/P⌉ + r mod c, c the
   * split's workers.
   */
  private static Dataset<Row> dealtOverTheirSplitsWorkers(Dataset<Row> rows, int workers) {
    List<List<Row>> splits = rows.javaRDD().glom().collect();
    int p = splits.size();
    List<List<Row>> parts = new ArrayList<>();
    for (int k = 0; k < workers; k++) {
      parts.add(new ArrayList<>());
    }
    for (int s = 0; s < p; s++) {
      int first = (int) (((long) s * workers + p - 1) / p);
      int count = (int) (((long) (s + 1) * workers + p - 1) / p) - first;
      for (int r = 0; r < splits.get(s).size(); r++) {
        parts.get(first + r % count).add(splits.get(s).get(r));
      }
    }
    return spark.createDataFrame(jsc.parallelize(parts, workers).flatMap(List::iterator),
        rows.schema());
  }

  /**
   * One split (every data sample, the quick start): {@code fit} deals it round-robin over the
   * workers, and so does the one-pass reader, so the jobs' models are unchanged. More splits,
   * still fewer than the workers: each split dealt over its own workers.
   */
  @Test
  void withFewerSplitsThanWorkersEachSplitIsDealtOverItsWorkers() {
    String path = TestData.sharedData("breast_cancer", "train.libsvm").toString();
    LabeledData frame = LibSvmSource.read(spark, path, ReadSpec.labelled(), "data");
    assertEquals(1, frame.frame().rdd().getNumPartitions());
    for (int workers : new int[] {2, 7}) {
      // The calibrator is compared below, on the four splits (every case's weights here).
      PerceptronClassifier estimator = estimator(workers).setUpdateRule("pa1")
          .setCalibration("none");
      assertSameModel(estimator.fit(frame.frame()), onePass(estimator, path,
          TextInput.Format.LIBSVM, ReadSpec.labelled(), workers),
          "breast_cancer, 1 split, " + workers + " workers");
    }
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    String old = conf.get(MAX_SPLIT);
    conf.setLong(MAX_SPLIT, 40_000);
    try {
      LabeledData four = LibSvmSource.read(spark, path, ReadSpec.labelled(), "data");
      assertEquals(4, four.frame().rdd().getNumPartitions());
      PerceptronClassifier estimator = estimator(7);
      assertSameModel(estimator.fit(dealtOverTheirSplitsWorkers(four.frame(), 7)),
          onePass(estimator, path, TextInput.Format.LIBSVM, ReadSpec.labelled(), 7),
          "breast_cancer, 4 splits, 7 workers");
    } finally {
      if (old == null) {
        conf.unset(MAX_SPLIT);
      } else {
        conf.set(MAX_SPLIT, old);
      }
    }
  }

  /**
   * A LIBSVM file whose last feature occurs only in its first rows: the later workers' rows are
   * read narrower and their dense blocks widened to the file's width, as if built at it.
   */
  @Test
  void blocksReadNarrowerThanTheFileAreWidenedAsIfBuiltAtItsWidth() throws IOException {
    Random rnd = new Random(5);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 60; i++) {
      sb.append(rnd.nextBoolean() ? "+1" : "-1");
      for (int j = 1; j <= 5; j++) {
        sb.append(' ').append(j).append(':').append(rnd.nextInt(9) + 1);
      }
      if (i < 3) {
        sb.append(" 6:1.5");
      }
      sb.append('\n');
    }
    Path path = dir.resolve("narrow.libsvm");
    Files.writeString(path, sb.toString());
    LabeledData frame = LibSvmSource.read(spark, path.toString(), ReadSpec.labelled(), "data");
    assertEquals(6, frame.numFeatures());
    for (int workers : new int[] {2, 4}) {
      PerceptronClassifier estimator = estimator(workers);
      assertSameModel(estimator.fit(frame.frame()), onePass(estimator, path.toString(),
          TextInput.Format.LIBSVM, ReadSpec.labelled(), workers),
          "narrow rows, -1/+1 labels, " + workers + " workers");
    }
  }

  @Test
  void csvWithWeightsAndAGzipFileShareTheSameRows() throws IOException {
    Random rnd = new Random(8);
    StringBuilder sb = new StringBuilder("w,a,label,b,c\n");
    StringBuilder plain = new StringBuilder();
    for (int i = 0; i < 80; i++) {
      String line = (rnd.nextInt(3) + 0.5) + "," + rnd.nextGaussian() + "," + rnd.nextInt(3)
          + "," + (rnd.nextInt(5) == 0 ? 0 : rnd.nextGaussian()) + "," + rnd.nextGaussian()
          + "\n";
      sb.append(line);
      plain.append(i % 2).append(" 1:").append(rnd.nextGaussian()).append(" 3:")
          .append(rnd.nextGaussian()).append('\n');
    }
    Path csv = dir.resolve("weighted.csv");
    Files.writeString(csv, sb.toString());
    ReadSpec spec = ReadSpec.labelled().withWeightCol("w");
    LabeledData frame = CsvSource.read(spark, csv.toString(), spec, "data");
    for (int workers : new int[] {1, 3}) {
      PerceptronClassifier estimator = estimator(workers).setWeightCol("w");
      assertSameModel(estimator.fit(frame.frame()), onePass(estimator, csv.toString(),
          TextInput.Format.CSV, spec, workers), "weighted CSV, " + workers + " workers");
    }

    Path gz = dir.resolve("shared.libsvm.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(plain.toString().getBytes(StandardCharsets.US_ASCII));
    }
    LabeledData gzFrame = LibSvmSource.read(spark, gz.toString(), ReadSpec.labelled(), "data");
    PerceptronClassifier estimator = estimator(3);
    assertSameModel(estimator.fit(gzFrame.frame()), onePass(estimator, gz.toString(),
        TextInput.Format.LIBSVM, ReadSpec.labelled(), 3), "gzip, rows shared by 3 workers");
  }
}
