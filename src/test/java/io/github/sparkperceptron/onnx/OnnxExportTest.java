package io.github.sparkperceptron.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.internal.onnx.OnnxProto.ModelProto;
import io.github.sparkperceptron.internal.onnx.OnnxProto.NodeProto;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.ml.SparkPerceptronVersion;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Exported models scored by ONNX Runtime (its Java API, the runtime a service outside Spark
 * uses) against the Spark model's own {@code transform} on the test rows of the shared data
 * sets: every prediction equal, every raw score equal within 1e-9 relative.
 *
 * <p>The tolerance: ONNX Runtime computes w·x as a matrix product (its own summation order, fused
 * multiply-adds), Spark as a sequential sum, so the two may differ by rounding: at most about
 * d·2⁻⁵³ times Σ|w_j·x_j| + |b|, the size of the terms (d ≤ 692 here: below 1e-13 of it). The
 * test allows 1e-9 of the larger of the raw score itself and that size of its terms (a score
 * that cancels to near zero cannot be closer than its terms' rounding), and reports how many
 * raw scores were bit for bit equal.
 *
 * <p>The probabilities (the model's calibrator: Platt's sigmoid by default, isotonic, the raw
 * link, temperature scaling for K classes) must agree within 1e-12 absolute: the graph repeats
 * the Java arithmetic operation for operation, so they differ by the rounding of ONNX Runtime's
 * Exp and sums (a few 1e-16) plus the raw scores' rounding times the calibrator's slope.
 */
class OnnxExportTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static final double RELATIVE = 1e-9;
  /** The bound on the probabilities' difference (class comment). */
  private static final double PROBABILITY = 1e-12;
  /** The test rows a voted model of a shared data set is checked on (the vote test's comment). */
  private static final int VOTE_TEST_ROWS = 500;

  @TempDir
  Path tmp;

  private static Dataset<Row> read(String name, String file, int d) {
    return SPARK.read().format("libsvm").option("numFeatures", Integer.toString(d))
        .load(TestData.sharedData(name, file).toString());
  }

  private static PerceptronClassifier estimator() {
    return new PerceptronClassifier().setMaxIter(10);
  }

  /** {@link #fitted}'s models, by data set, averaging and calibration. */
  private static final Map<String, PerceptronClassificationModel> FITTED = new HashMap<>();

  /**
   * {@link #estimator()} with {@code averaging} and {@code calibration}, fitted on the shared data
   * set {@code name}'s training rows once per class: a fit is a pure function of the data, params
   * and seed, and the graph tests only read the model (a test that sets a param copies it).
   */
  private static PerceptronClassificationModel fitted(String name, int d, String averaging,
      String calibration) {
    return FITTED.computeIfAbsent(name + " " + averaging + " " + calibration,
        k -> estimator().setAveraging(averaging).setCalibration(calibration)
            .fit(read(name, "train.libsvm", d)));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"breast_cancer, 30", "iris, 4", "pendigits, 16", "skin_nonskin, 3",
      "spark_sample_libsvm, 692"})
  void everySharedDataSetScoresTheSameInOnnxRuntime(String name, int d) throws Exception {
    PerceptronClassificationModel model = fitted(name, d, "average", "sigmoid");
    assertSameScores(model, read(name, "test.libsvm", d), name);
  }

  @ParameterizedTest(name = "{0} vote")
  @CsvSource({"breast_cancer, 30", "iris, 4", "pendigits, 16", "spark_sample_libsvm, 692"})
  void votedModelsOfTheSharedDataSetsScoreTheSame(String name, int d) throws Exception {
    PerceptronClassificationModel model = fitted(name, d, "vote", "sigmoid");
    assertTrue(EngineBridge.vote(model) != null);
    // A voted graph scores a row against every vote vector, so a test row costs ONNX Runtime
    // (and the check) the model's size: pendigits' thousands of vectors on all 3,498 test rows
    // took most of this class's time. The graph is one for every row, so the first rows of
    // each file (every row of the three small ones) check it as well as all of them would.
    assertSameScores(model, read(name, "test.libsvm", d).limit(VOTE_TEST_ROWS), name + " vote");
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @CsvSource({
      "breast_cancer, perceptron, none", "breast_cancer, perceptron, average",
      "breast_cancer, perceptron, vote", "breast_cancer, pa, none", "breast_cancer, pa, average",
      "breast_cancer, pa, vote", "breast_cancer, pa1, none", "breast_cancer, pa1, average",
      "breast_cancer, pa1, vote", "breast_cancer, pa2, none", "breast_cancer, pa2, average",
      "breast_cancer, pa2, vote",
      "iris, perceptron, none", "iris, perceptron, average", "iris, perceptron, vote",
      "iris, pa, none", "iris, pa, average", "iris, pa, vote", "iris, pa1, none",
      "iris, pa1, average", "iris, pa1, vote", "iris, pa2, none", "iris, pa2, average",
      "iris, pa2, vote"})
  void everyUpdateRuleAndAveragingScoresTheSame(String name, String rule, String averaging)
      throws Exception {
    int d = name.equals("iris") ? 4 : 30;
    // The rule and the averaging change the weights, never the calibrator's graph, which the
    // shared data sets' default models and every calibration's case below score: these fit
    // without the default's three cross-fitted fold models.
    PerceptronClassificationModel model = new PerceptronClassifier().setMaxIter(5)
        .setUpdateRule(rule).setAveraging(averaging).setAggressiveness(0.5)
        .setCalibration("none").fit(read(name, "train.libsvm", d));
    assertSameScores(model, read(name, "test.libsvm", d), name + " " + rule + " " + averaging);
  }

  /**
   * Every calibrator's probabilities: isotonic (binary and per class, the unrolled binary search),
   * the raw link, Platt's sigmoid and temperature scaling, on linear and voted models.
   */
  @ParameterizedTest(name = "{0} {1} {2}")
  @CsvSource({"breast_cancer, isotonic, average", "breast_cancer, none, average",
      "breast_cancer, isotonic, vote", "iris, isotonic, average", "iris, none, average",
      "iris, sigmoid, vote", "pendigits, isotonic, average", "skin_nonskin, isotonic, average"})
  void everyCalibrationGivesSparksProbabilities(String name, String calibration,
      String averaging) throws Exception {
    int d = Map.of("breast_cancer", 30, "iris", 4, "pendigits", 16, "skin_nonskin", 3).get(name);
    PerceptronClassificationModel model = fitted(name, d, averaging, calibration);
    assertEquals(calibration, EngineBridge.calibrator(model).method().paramValue());
    assertSameScores(model, read(name, "test.libsvm", d), name + " " + calibration + " "
        + averaging);
  }

  @ParameterizedTest(name = "{0} fitIntercept=false")
  @CsvSource({"none", "average", "vote"})
  void modelsWithoutInterceptScoreTheSame(String averaging) throws Exception {
    // Binary and multiclass; multiclass on iris. Pendigits' voted model (thousands of vote
    // vectors) is checked with its intercept above; without one the graph is the same with
    // zero intercepts (a voted graph: a bias input of 0, not 1), which iris's three classes
    // exercise as well.
    for (String name : new String[] {"breast_cancer", "iris"}) {
      int d = name.equals("iris") ? 4 : 30;
      // Without the default's cross-fitted calibrator, as everyUpdateRuleAndAveraging says.
      PerceptronClassificationModel model = estimator().setFitIntercept(false)
          .setAveraging(averaging).setCalibration("none").fit(read(name, "train.libsvm", d));
      assertSameScores(model, read(name, "test.libsvm", d), name + " no intercept");
    }
  }

  /**
   * The threshold is part of the graph: halfway between the two middle test margins half the
   * predictions change class, and at ±∞ all of them predict one class, as in Spark. (A threshold
   * equal to a row's margin would make that row's class depend on the last bit of w·x, which a
   * matrix product need not round as Spark's sequential sum does.)
   */
  @ParameterizedTest(name = "averaging={0}")
  @CsvSource({"average", "vote"})
  void binaryThresholdsOtherThanZeroScoreTheSame(String averaging) throws Exception {
    Dataset<Row> test = read("breast_cancer", "test.libsvm", 30);
    // A copy: the thresholds below are set on it, not on the shared model.
    PerceptronClassificationModel model = fitted("breast_cancer", 30, averaging, "sigmoid")
        .copy(ParamMap.empty());
    double[] margins = test.select("features").collectAsList().stream()
        .mapToDouble(r -> model.predictRaw((Vector) r.get(0)).apply(1)).sorted().toArray();
    double median = (margins[margins.length / 2 - 1] + margins[margins.length / 2]) / 2;
    assertTrue(margins[margins.length / 2 - 1] < median && median < margins[margins.length / 2],
        "the two middle margins are equal: pick another threshold");
    for (double threshold : new double[] {median, Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY}) {
      model.setThreshold(threshold);
      assertSameScores(model, test, averaging + " threshold " + threshold);
    }
  }

  @Test
  void theOnnxFormatWritesTheFileIntoTheSavedDirectoryAndSaveKeepsSparksLayout()
      throws Exception {
    // Where the file goes, whatever its graph: without the default's cross-fitted calibrator.
    PerceptronClassificationModel model = estimator().setCalibration("none")
        .fit(read("iris", "train.libsvm", 4));
    Path onnxDir = tmp.resolve("onnx-model");
    model.write().format("onnx").save(onnxDir.toString());
    Path file = onnxDir.resolve(OnnxFormat.FILE_NAME);
    assertArrayEquals(OnnxExport.toBytes(model), Files.readAllBytes(file));
    try (var listing = Files.list(onnxDir)) {
      assertEquals(List.of(file), listing.toList(), "only the model file, no temporary file");
    }
    assertThrows(IOException.class, () -> model.write().format("onnx").save(onnxDir.toString()),
        "an existing directory is kept without overwrite(), as every Spark writer does");
    PerceptronClassificationModel other = estimator().setMaxIter(1).setCalibration("none")
        .fit(read("iris", "train.libsvm", 4));
    other.write().format("ONNX").overwrite().save(onnxDir.toString());
    assertArrayEquals(OnnxExport.toBytes(other), Files.readAllBytes(file));

    Path internal = tmp.resolve("internal");
    model.write().save(internal.toString());
    assertTrue(Files.isDirectory(internal.resolve("metadata")));
    assertTrue(Files.notExists(internal.resolve(OnnxFormat.FILE_NAME)));
    PerceptronClassificationModel loaded = PerceptronClassificationModel.load(internal.toString());
    assertArrayEquals(model.coefficientMatrix().toArray(), loaded.coefficientMatrix().toArray());
  }

  /** The graph is what the documentation says: opset, producer, inputs, outputs and operators. */
  @Test
  void theGraphUsesTheDocumentedOpsetAndOperators() throws Exception {
    Set<String> used = new TreeSet<>();
    for (String averaging : new String[] {"average", "vote"}) {
      for (String name : new String[] {"breast_cancer", "iris"}) {
        int d = name.equals("iris") ? 4 : 30;
        PerceptronClassificationModel model = fitted(name, d, averaging, "sigmoid");
        ModelProto proto = ModelProto.parseFrom(OnnxExport.toBytes(model));
        assertEquals(8, proto.getIrVersion());
        // The build's version, which JobVersionTest checks against the pom ("unknown" before).
        assertEquals("spark-perceptron", proto.getProducerName());
        assertEquals(SparkPerceptronVersion.VERSION, proto.getProducerVersion());
        assertEquals(1, proto.getOpsetImportCount());
        assertEquals(OnnxExport.OPSET, proto.getOpsetImport(0).getVersion());
        assertEquals("", proto.getOpsetImport(0).getDomain(), "the standard ai.onnx domain");
        assertEquals(List.of("features"), proto.getGraph().getInputList().stream()
            .map(v -> v.getName()).toList());
        assertEquals(List.of("prediction", "rawPrediction", "probability"), proto.getGraph()
            .getOutputList().stream().map(v -> v.getName()).toList());
        assertEquals(d, proto.getGraph().getInput(0).getType().getTensorType().getShape()
            .getDim(1).getDimValue());
        for (NodeProto node : proto.getGraph().getNodeList()) {
          used.add(node.getOpType());
        }
      }
    }
    assertEquals(new TreeSet<>(List.of("Add", "ArgMax", "Cast", "Concat", "CumSum", "Div",
        "Equal", "Exp", "Gather", "Greater", "MatMul", "Max", "Min", "Mul", "Neg", "ReduceMax",
        "ReduceSum", "Reshape", "Sub", "Unsqueeze", "Where")), used);
  }

  /**
   * The size check counts the bytes before building anything: for a model of 2²⁰ features the
   * estimate lies within its 64 KiB allowance above the real file, and a vote whose dense update
   * rows would pass protobuf's 2 GiB is refused with a message naming averaging=average.
   */
  @Test
  void theSizeLimitIsCountedBeforeExportAndRefusedWithAMessage() {
    int d = 1 << 20;
    List<TestData.Example> rows = wideRows(d, 400, 7L);
    Dataset<Row> train = TestData.frame(SPARK, rows, 2);
    PerceptronClassificationModel average = new PerceptronClassifier().setMaxIter(2)
        .fit(train);
    long actual = OnnxExport.toBytes(average).length;
    long estimate = OnnxExport.estimatedBytes(average);
    assertTrue(estimate >= actual && estimate - actual <= 64 * 1024,
        "estimate " + estimate + " vs " + actual + " bytes");

    // The vote without a calibrator: it is refused for its update rows alone, and the default
    // would cross-fit three more voted models on these 400 rows first.
    PerceptronClassificationModel voted = new PerceptronClassifier().setMaxIter(2)
        .setAveraging("vote").setCalibration("none").fit(train);
    VotedPerceptron vote = EngineBridge.vote(voted);
    long updates = vote.updateRaised().length;
    assertTrue(8L * updates * d > OnnxExport.MAX_MODEL_BYTES,
        "the fixture must exceed the limit: " + updates + " updates");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> OnnxExport.toBytes(voted));
    assertTrue(e.getMessage().contains("averaging=average")
        && e.getMessage().contains("2,147,483,647"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> voted.write().format("onnx").save(tmp.resolve("too-large").toString()));
    assertTrue(Files.notExists(tmp.resolve("too-large").resolve(OnnxFormat.FILE_NAME)));
  }

  /** Sparse rows of {@code d} features (8 non-zeros each) with random labels: many updates. */
  private static List<TestData.Example> wideRows(int d, int n, long seed) {
    Random random = new Random(seed);
    List<TestData.Example> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int[] idx = random.ints(0, d).distinct().limit(8).sorted().toArray();
      double[] val = random.doubles(idx.length, -1, 1).toArray();
      rows.add(new TestData.Example(random.nextInt(2),
          Vectors.sparse(d, idx, val)));
    }
    return rows;
  }

  /**
   * Scores {@code test} with the model's {@code transform} and with its ONNX export in ONNX
   * Runtime, and asserts equal predictions and raw scores within the tolerance (class comment).
   */
  static void assertSameScores(PerceptronClassificationModel model, Dataset<Row> test,
      String what) throws Exception {
    List<Row> rows = model.transform(test).select("features", "prediction", "rawPrediction",
        "probability").collectAsList();
    int d = model.numFeatures();
    int n = rows.size();
    double[] scale = termScale(model, rows);
    int batch = batchRows(model);
    long identical = 0;
    double worst = 0;
    try (OnnxRuntimeScorer scorer = new OnnxRuntimeScorer(OnnxExport.toBytes(model))) {
      for (int start = 0; start < n; start += batch) {
        int count = Math.min(batch, n - start);
        double[] x = new double[count * d];
        for (int r = 0; r < count; r++) {
          double[] row = ((Vector) rows.get(start + r).get(0)).toArray();
          System.arraycopy(row, 0, x, r * d, d);
        }
        OnnxRuntimeScorer.Scores scores = scorer.score(x, count, d);
        for (int r = 0; r < count; r++) {
          Row spark = rows.get(start + r);
          int i = start + r;
          assertEquals(spark.getDouble(1), scores.prediction()[r], 0.0,
              what + ": prediction of test row " + i);
          double[] expected = ((Vector) spark.get(2)).toArray();
          double[] actual = scores.rawPrediction()[r];
          assertEquals(expected.length, actual.length, what + ": raw prediction size");
          for (int k = 0; k < expected.length; k++) {
            double diff = Math.abs(expected[k] - actual[k]);
            double size = Math.max(Math.abs(expected[k]), scale[i]);
            assertTrue(diff <= RELATIVE * size, what + ": raw prediction " + k + " of test row "
                + i + ": Spark " + expected[k] + ", ONNX Runtime " + actual[k]);
            if (Double.doubleToLongBits(expected[k]) == Double.doubleToLongBits(actual[k])
                || expected[k] == actual[k]) {
              identical++;
            }
            worst = Math.max(worst, size == 0 ? 0 : diff / size);
          }
          double[] p = ((Vector) spark.get(3)).toArray();
          assertEquals(expected.length, scores.probability()[r].length, what + ": probability");
          for (int k = 0; k < p.length; k++) {
            assertEquals(p[k], scores.probability()[r][k], PROBABILITY, what + ": probability "
                + k + " of test row " + i + " (" + model.getCalibration() + ")");
          }
        }
      }
    }
    System.out.printf("ONNX check %s: %d rows, %d of %d raw scores bit-identical, largest"
        + " difference %.3g of the terms' size%n", what, n, identical,
        (long) n * (model.numClasses() == 2 ? 2 : model.numClasses()), worst);
  }

  /**
   * Per row, the size of the terms its raw scores sum: Σ_j |w_kj·x_j| + |b_k| (largest over the
   * score rows k) for a linear model; the total vote weight for a voted one.
   */
  private static double[] termScale(PerceptronClassificationModel model, List<Row> rows) {
    double[] out = new double[rows.size()];
    VotedPerceptron vote = EngineBridge.vote(model);
    if (vote != null) {
      double total = Arrays.stream(vote.segmentStartWeights()).sum()
          + Arrays.stream(vote.updateWeights()).sum();
      Arrays.fill(out, total);
      return out;
    }
    Matrix w = model.coefficientMatrix();
    double[] b = model.interceptVector().toArray();
    for (int i = 0; i < rows.size(); i++) {
      double[] x = ((Vector) rows.get(i).get(0)).toArray();
      for (int k = 0; k < w.numRows(); k++) {
        double s = Math.abs(b[k]);
        for (int j = 0; j < x.length; j++) {
          s += Math.abs(w.apply(k, j) * x[j]);
        }
        out[i] = Math.max(out[i], s);
      }
    }
    return out;
  }

  /** Rows per ONNX Runtime call: all for a linear model; about 64 MB of vote scores per call. */
  private static int batchRows(PerceptronClassificationModel model) {
    VotedPerceptron vote = EngineBridge.vote(model);
    if (vote == null) {
      return Integer.MAX_VALUE;
    }
    int longest = 0;
    for (int s = 0; s < vote.numSegments(); s++) {
      longest = Math.max(longest,
          vote.segmentFirstUpdates()[s + 1] - vote.segmentFirstUpdates()[s]);
    }
    long perRow = 8L * vote.numSegments() * (longest + 1)
        * (model.numClasses() == 2 ? 1 : model.numClasses());
    return (int) Math.max(1, Math.min(4096, (64L << 20) / Math.max(1, perRow)));
  }
}
