package io.github.sparkperceptron.ml;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.not;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.blocks.BlockProbabilities;
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.calibration.CalibrationMethod;
import io.github.sparkperceptron.internal.calibration.IsotonicSteps;
import io.github.sparkperceptron.internal.calibration.PlattScaling;
import io.github.sparkperceptron.internal.calibration.ScoreSample;
import io.github.sparkperceptron.internal.calibration.TemperatureScaling;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import io.github.sparkperceptron.testing.CalibrationHash;
import io.github.sparkperceptron.testing.LogCapture;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.logging.log4j.Level;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The default calibration rows (issue 33): a seeded 10% of the rows, chosen by the hash of each
 * row, held out of training and calibrated on. The rows it holds out are named here by the hash
 * recomputed from its formula ({@link CalibrationHash}), never by the code under test; the model
 * is the model of calibration=none on the other rows, bit for bit; the calibrator is the
 * Spark-free fit of those rows' scores; and data too small for it cross-fit, or, where not even
 * that can be done, stay uncalibrated with a warning.
 */
class HeldOutCalibrationTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static final long SEED = 42;
  /** Noisy binary rows: about 150 held out, some 75 of each class (the floor is 50). */
  private static List<TestData.Example> binary;
  private static boolean[] binaryHeld;

  @BeforeAll
  static void data() {
    binary = noisy(1_500, 8, 2, 1);
    binaryHeld = held(binary, SEED);
  }

  /** Rows of K classes: a random linear score per class plus noise, the best one the label. */
  private static List<TestData.Example> noisy(int n, int d, int k, long seed) {
    Random r = new Random(seed);
    double[][] w = new double[k][d];
    for (double[] row : w) {
      for (int j = 0; j < d; j++) {
        row[j] = r.nextGaussian();
      }
    }
    List<TestData.Example> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double[] x = new double[d];
      for (int j = 0; j < d; j++) {
        // A quarter of the values zero: the hash skips them, the conversion stores them.
        x[j] = r.nextDouble() < 0.25 ? 0.0 : r.nextGaussian();
      }
      int best = 0;
      double top = Double.NEGATIVE_INFINITY;
      for (int c = 0; c < k; c++) {
        double s = 1.5 * r.nextGaussian();
        for (int j = 0; j < d; j++) {
          s += w[c][j] * x[j];
        }
        if (s > top) {
          top = s;
          best = c;
        }
      }
      out.add(new TestData.Example(best, i % 2 == 0 ? Vectors.dense(x)
          : Vectors.dense(x).toSparse()));
    }
    return out;
  }

  /** The rows the rule holds out: hash below 10%, recomputed here. */
  private static boolean[] held(List<TestData.Example> rows, long seed) {
    boolean[] out = new boolean[rows.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = CalibrationHash.unit(seed, rows.get(i).label, rows.get(i).features) < 0.1;
    }
    return out;
  }

  /** The rows in order, {@code partitions} contiguous slices, with a column {@code held}. */
  private static Dataset<Row> frame(List<TestData.Example> rows, boolean[] held,
      int partitions) {
    List<Row> list = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      list.add(RowFactory.create(rows.get(i).label, rows.get(i).features, held[i]));
    }
    StructType schema = TestData.SCHEMA.add(DataTypes.createStructField("held",
        DataTypes.BooleanType, false));
    return SPARK.createDataFrame(new JavaSparkContext(SPARK.sparkContext())
        .parallelize(list, partitions), schema);
  }

  private static List<TestData.Example> only(List<TestData.Example> rows, boolean[] held,
      boolean which) {
    List<TestData.Example> out = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      if (held[i] == which) {
        out.add(rows.get(i));
      }
    }
    return out;
  }

  private static long[] bits(PerceptronClassificationModel m) {
    double[] w = m.numClasses() == 2 ? m.coefficients().toArray()
        : m.coefficientMatrix().toArray();
    double[] b = m.numClasses() == 2 ? new double[] {m.intercept()}
        : m.interceptVector().toArray();
    long[] out = new long[w.length + b.length];
    for (int i = 0; i < w.length; i++) {
      out[i] = Double.doubleToLongBits(w[i]);
    }
    for (int i = 0; i < b.length; i++) {
      out[w.length + i] = Double.doubleToLongBits(b[i]);
    }
    return out;
  }

  @Test
  void theHeldOutRowsAreExactlyTheRowsTheHashChooses() {
    long expected = 0;
    long[] perClass = new long[2];
    for (int i = 0; i < binary.size(); i++) {
      if (binaryHeld[i]) {
        expected++;
        perClass[(int) binary.get(i).label]++;
      }
    }
    assertTrue(perClass[0] >= 50 && perClass[1] >= 50, Arrays.toString(perClass));
    PerceptronClassifier estimator = new PerceptronClassifier().setNumWorkers(1);
    PerceptronClassificationModel scorer = new PerceptronClassifier().setCalibration("none")
        .setMaxIter(2).fit(frame(binary, binaryHeld, 1));
    JavaSparkContext jsc = new JavaSparkContext(SPARK.sparkContext());
    try (TrainingInput input = TrainingInput.prepare(frame(binary, binaryHeld, 1),
        TrainingPlan.forFit(jsc, estimator.trainingConfig()))) {
      assertEquals(expected, input.validationRows());
      assertArrayEquals(perClass, input.validationClassCounts());
      assertEquals(binary.size() - expected, input.numRows());
      // Identity, in input order: the held-out rows' classes and scores are those of the rows
      // the hash names, scored here by the same model through its public predictRaw.
      ScoreSample sample = BlockProbabilities.sample(input, scorer.predictor(), true);
      List<TestData.Example> named = only(binary, binaryHeld, true);
      assertEquals(named.size(), sample.size());
      for (int i = 0; i < named.size(); i++) {
        assertEquals((int) named.get(i).label, sample.label(i), "row " + i);
        assertEquals(scorer.predictRaw(named.get(i).features).apply(1), sample.score(i, 0), 0.0,
            "row " + i);
      }
    }
  }

  /**
   * The default's model is the model calibration=none fits on the DataFrame without the held-out
   * rows, bit for bit: one worker, one per partition, and partitions coalesced two to a worker
   * (the same rows in the same order reach each worker either way).
   */
  @ParameterizedTest(name = "{0} worker(s) over {1} partition(s)")
  @CsvSource({"1, 1", "3, 3", "2, 4"})
  void theModelTrainsOnTheOtherRowsBitForBit(int workers, int partitions) {
    Dataset<Row> data = frame(binary, binaryHeld, partitions);
    PerceptronClassifier estimator = new PerceptronClassifier().setNumWorkers(workers)
        .setMaxIter(5);
    PerceptronClassificationModel model = estimator.fit(data);
    PerceptronClassificationModel none = estimator.copy(ParamMap.empty()).setCalibration("none")
        .fit(data.filter(not(col("held"))));
    assertArrayEquals(bits(none), bits(model));
    assertArrayEquals(none.summary().mistakesHistory(), model.summary().mistakesHistory());
    assertEquals("sigmoid", model.getCalibration());
    // calibration=none itself holds nothing out: it trains on every row.
    assertNotEquals(Arrays.toString(bits(none)), Arrays.toString(bits(
        estimator.copy(ParamMap.empty()).setCalibration("none").fit(data))));
  }

  /**
   * The sigmoid is Platt's fit of the held-out rows' margins, computed here from the model's own
   * predictRaw in input order (the order the workers, one per partition, keep): the same numbers
   * in the same order, so the same bits; isotonic regression likewise.
   */
  @ParameterizedTest(name = "{0} worker(s)")
  @CsvSource({"1", "3"})
  void theCalibratorIsTheFitOfTheHeldOutRowsScores(int workers) {
    List<TestData.Example> heldOut = only(binary, binaryHeld, true);
    int[] y = new int[heldOut.size()];
    double[] ones = new double[heldOut.size()];
    Arrays.fill(ones, 1.0);
    for (int i = 0; i < y.length; i++) {
      y[i] = (int) heldOut.get(i).label;
    }
    PerceptronClassifier estimator = new PerceptronClassifier().setNumWorkers(workers)
        .setMaxIter(4);
    PerceptronClassificationModel sigmoid = estimator.fit(frame(binary, binaryHeld, workers));
    double[] m = new double[heldOut.size()];
    for (int i = 0; i < m.length; i++) {
      m[i] = sigmoid.predictRaw(heldOut.get(i).features).apply(1);
    }
    assertArrayEquals(PlattScaling.fit(m, y, ones, m.length), sigmoid.calibrator().parameters(),
        0.0);

    PerceptronClassificationModel isotonic = estimator.copy(ParamMap.empty())
        .setCalibration("isotonic").fit(frame(binary, binaryHeld, workers));
    assertArrayEquals(bits(sigmoid), bits(isotonic), "the same rows train either way");
    IsotonicSteps expected = IsotonicSteps.fit(m, y, ones, m.length);
    assertArrayEquals(expected.boundaries(), isotonic.calibrator().steps()[0].boundaries(), 0.0);
    assertArrayEquals(expected.values(), isotonic.calibrator().steps()[0].values(), 0.0);
  }

  /** K classes: temperature scaling of the held-out rows' K scores. */
  @Test
  void manyClassesScaleTheTemperatureOnTheHeldOutRows() {
    List<TestData.Example> rows = noisy(2_400, 6, 3, 7);
    boolean[] held = held(rows, SEED);
    List<TestData.Example> heldOut = only(rows, held, true);
    PerceptronClassificationModel model = new PerceptronClassifier().setNumWorkers(1)
        .setMaxIter(4).fit(frame(rows, held, 1));
    assertEquals(CalibrationMethod.SIGMOID, model.calibrator().method());
    double[] z = new double[heldOut.size() * 3];
    int[] y = new int[heldOut.size()];
    double[] ones = new double[y.length];
    Arrays.fill(ones, 1.0);
    for (int i = 0; i < y.length; i++) {
      System.arraycopy(model.predictRaw(heldOut.get(i).features).toArray(), 0, z, 3 * i, 3);
      y[i] = (int) heldOut.get(i).label;
    }
    assertEquals(TemperatureScaling.fit(z, y, ones, y.length, 3),
        model.calibrator().parameters()[0], 0.0);
  }

  @Test
  void theSameSeedHoldsOutTheSameRowsAndAnotherSeedOthers() {
    Dataset<Row> data = frame(binary, binaryHeld, 2);
    PerceptronClassifier estimator = new PerceptronClassifier().setNumWorkers(2).setMaxIter(3);
    PerceptronClassificationModel a = estimator.fit(data);
    PerceptronClassificationModel b = estimator.fit(data);
    assertArrayEquals(bits(a), bits(b));
    assertArrayEquals(a.calibrator().parameters(), b.calibrator().parameters(), 0.0);

    // Seed 7 holds out other rows: the model equals none's fit without those.
    boolean[] other = held(binary, 7);
    assertNotEquals(Arrays.toString(binaryHeld), Arrays.toString(other));
    PerceptronClassifier seven = estimator.copy(ParamMap.empty()).setSeed(7);
    assertArrayEquals(bits(seven.copy(ParamMap.empty()).setCalibration("none")
        .fit(frame(binary, other, 2).filter(not(col("held"))))),
        bits(seven.fit(frame(binary, other, 2))));
  }

  /**
   * breast_cancer's 455 rows hold out 35, 15 of class 0, fewer than 50: the model trains on
   * every row (calibration=none's model) and the calibrator is cross-fitted on 3 folds, exactly
   * calibrationFolds=3's; the log says why.
   */
  @Test
  void tooFewHeldOutRowsOfAClassCrossFitOnThreeFolds() {
    List<TestData.Example> cancer = TestData.readLibSvm(
        TestData.sharedData("breast_cancer", "train.libsvm"), 30);
    long class0 = 0;
    long held0 = 0;
    for (TestData.Example e : cancer) {
      if (e.label == 0.0) {
        class0++;
        held0 += CalibrationHash.unit(SEED, e.label, e.features) < 0.1 ? 1 : 0;
      }
    }
    Dataset<Row> data = TestData.frameInOrder(SPARK, cancer, 2);
    PerceptronClassifier estimator = new PerceptronClassifier().setNumWorkers(2).setMaxIter(4);
    PerceptronClassificationModel model;
    try (LogCapture log = LogCapture.of(ModelCalibration.class)) {
      model = estimator.fit(data);
      assertEquals(List.of("calibration=sigmoid: the 10% of the rows held out for calibration"
          + " hold " + held0 + " row(s) of class 0 (of " + class0 + "), fewer than the 50 a"
          + " class it calibrates on, so the model trains on every row and the calibrator is"
          + " cross-fitted on 3 folds (3 more fits of this small training; BENCHMARKS.md, issue"
          + " 33)"), log.messages(Level.INFO).subList(0, 1));
    }
    assertArrayEquals(bits(estimator.copy(ParamMap.empty()).setCalibration("none").fit(data)),
        bits(model));
    assertArrayEquals(estimator.copy(ParamMap.empty()).setCalibrationFolds(3).fit(data)
        .calibrator().parameters(), model.calibrator().parameters(), 0.0);
    assertEquals("sigmoid", model.getCalibration());
  }

  /**
   * A small input that falls back to cross-fitting keeps its rows cached for the fold models'
   * conversions (besides its blocks), and closing the input releases them; an input that holds
   * its share out caches its blocks alone. (The fold models' calibrator from the cached rows is
   * calibrationFolds=3's from the source, bit for bit: the test above.)
   */
  @Test
  void theRowsKeptForTheFoldModelsAreReleasedWithTheInput() {
    List<TestData.Example> cancer = TestData.readLibSvm(
        TestData.sharedData("breast_cancer", "train.libsvm"), 30);
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(SPARK.sparkContext());
    PerceptronClassifier estimator = new PerceptronClassifier().setNumWorkers(2);
    Set<Object> before = persistedRdds();
    try (TrainingInput input = TrainingInput.prepare(TestData.frameInOrder(SPARK, cancer, 2),
        TrainingPlan.forFit(jsc, estimator.trainingConfig()))) {
      assertTrue(input.calibrationFallback() != null, "breast_cancer falls back to folds");
      assertEquals(before.size() + 2, persistedRdds().size(), "the blocks and the rows");
    }
    assertEquals(before, persistedRdds());
    List<TestData.Example> many = new ArrayList<>();
    for (int copy = 0; copy < 12; copy++) {
      many.addAll(cancer);
    }
    try (TrainingInput input = TrainingInput.prepare(TestData.frameInOrder(SPARK, many, 2),
        TrainingPlan.forFit(jsc, estimator.trainingConfig()))) {
      assertEquals(null, input.calibrationFallback(), "5,460 rows hold 50 of each class out");
      assertEquals(before.size() + 1, persistedRdds().size(), "the blocks alone");
    }
    assertEquals(before, persistedRdds());
  }

  private static Set<Object> persistedRdds() {
    return new HashSet<>(CollectionConverters.asJava(SPARK.sparkContext().getPersistentRDDs())
        .keySet());
  }

  /**
   * Six rows, one of class 0: the fold model trained without it cannot learn class 0, so the
   * default leaves the model uncalibrated with a warning that names the way out;
   * calibrationFolds asked for explicitly stops the fit instead.
   */
  @Test
  void dataTooSmallEvenToCrossFitStayUncalibratedWithAWarning() {
    List<TestData.Example> tiny = List.of(
        new TestData.Example(0, Vectors.dense(-1, 0)), new TestData.Example(1, Vectors.dense(1, 0)),
        new TestData.Example(1, Vectors.dense(-2, 1)), new TestData.Example(1, Vectors.dense(2, 1)),
        new TestData.Example(1, Vectors.dense(-1, 2)), new TestData.Example(1, Vectors.dense(1, 3)));
    Dataset<Row> data = TestData.frameInOrder(SPARK, tiny, 1);
    PerceptronClassificationModel model;
    try (LogCapture log = LogCapture.of(ModelCalibration.class)) {
      model = new PerceptronClassifier().fit(data);
      List<String> warnings = log.messages(Level.WARN);
      assertEquals(1, warnings.size(), warnings.toString());
      assertTrue(warnings.get(0).startsWith("calibration=sigmoid cross-fitted on 3 folds: the"
          + " rows outside fold "), warnings.get(0));
      assertTrue(warnings.get(0).contains(" hold no row of class 0 (the 10% of the rows held out"
          + " for calibration hold "), warnings.get(0));
      assertTrue(warnings.get(0).endsWith("so the model keeps the uncalibrated link"
          + " (calibration=none); calibrate it on rows it did not train on with"
          + " model.calibrate(rows, method), or give it validation rows"
          + " (validationIndicatorCol)"), warnings.get(0));
    }
    assertEquals("none", model.getCalibration());
    assertArrayEquals(bits(new PerceptronClassifier().setCalibration("none").fit(data)),
        bits(model));
    Vector x = Vectors.dense(1, 1);
    double m = model.predictRaw(x).apply(1);
    // The logistic function of the margin, computed as 1/(1 + e^(A·m + B)) with A = −1, B = 0:
    // the same operations, within an ulp of 1.
    assertEquals(1 / (1 + Math.exp(-m)), model.predictProbability(x).apply(1), 1e-15);

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new PerceptronClassifier().setCalibrationFolds(3).fit(data));
    assertTrue(e.getMessage().startsWith("calibrationFolds=3: the rows outside fold "),
        e.getMessage());
    assertTrue(e.getMessage().endsWith(" hold no row of class 0; use fewer folds, or"
        + " calibration=none"), e.getMessage());
  }
}
