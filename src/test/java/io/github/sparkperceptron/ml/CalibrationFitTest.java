package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.calibration.CalibrationMethod;
import io.github.sparkperceptron.internal.calibration.IsotonicSteps;
import io.github.sparkperceptron.internal.calibration.PlattScaling;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import io.github.sparkperceptron.testing.CalibrationHash;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The calibrator fit makes: on which rows, that it is the Spark-free fit of exactly those rows'
 * scores, reproducible, and what it refuses.
 */
class CalibrationFitTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static List<TestData.Example> cancer;

  @BeforeAll
  static void data() {
    cancer = TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30);
  }

  /** Every fourth row a validation row, in the given order, in one partition. */
  private static Dataset<Row> withValidation(List<TestData.Example> rows) {
    return TestData.frameInOrder(SPARK, rows, 1).withColumn("isValidation",
        functions.monotonically_increasing_id().mod(4).equalTo(0));
  }

  private static double[] margins(PerceptronClassificationModel model,
      List<TestData.Example> rows) {
    double[] m = new double[rows.size()];
    for (int i = 0; i < m.length; i++) {
      m[i] = model.predictRaw(rows.get(i).features).apply(1);
    }
    return m;
  }

  private static double[] ones(int n) {
    double[] w = new double[n];
    Arrays.fill(w, 1.0);
    return w;
  }

  private static int[] labels(List<TestData.Example> rows) {
    int[] y = new int[rows.size()];
    for (int i = 0; i < y.length; i++) {
      y[i] = (int) rows.get(i).label;
    }
    return y;
  }

  /**
   * With validationIndicatorCol the calibrator is Platt's fit of the validation rows' margins,
   * computed here from the model's own predictRaw in input order (one worker keeps it): the same
   * numbers in the same order, so the same bits.
   */
  @Test
  void theSigmoidIsPlattsFitOfTheValidationRowsScores() {
    PerceptronClassificationModel model = new PerceptronClassifier().setNumWorkers(1)
        .setMaxIter(4).setValidationIndicatorCol("isValidation").fit(withValidation(cancer));
    List<TestData.Example> validation = new ArrayList<>();
    for (int i = 0; i < cancer.size(); i += 4) {
      validation.add(cancer.get(i));
    }
    double[] m = margins(model, validation);
    double[] ab = PlattScaling.fit(m, labels(validation), ones(m.length),
        m.length);
    assertArrayEquals(ab, model.calibrator().parameters(), 0.0);
  }

  /**
   * calibrationFolds=3: the sigmoid of the out-of-fold margins, rebuilt here from the folds of
   * the row hash recomputed from its formula ({@link CalibrationHash}: fold ⌊3u⌋), three fold
   * models fitted through the public API on the rows outside each fold and their predictRaw;
   * the model's weights are those of a fit without calibration. The fit's rows may be stored in
   * another order within a fold, which moves Newton's minimum by rounding only.
   */
  @Test
  void crossFittingFitsTheOutOfFoldScores() {
    Dataset<Row> data = TestData.frame(SPARK, cancer, 2).cache();
    PerceptronClassifier estimator = new PerceptronClassifier().setNumWorkers(2).setMaxIter(3)
        .setSeed(5);
    PerceptronClassificationModel model = estimator.copy(ParamMap
        .empty()).setCalibrationFolds(3).fit(data);
    assertArrayEquals(estimator.copy(ParamMap.empty())
        .setCalibration("none").fit(data).coefficients().toArray(),
        model.coefficients().toArray(), 0.0);
    UserDefinedFunction fold = functions.udf((UDF2<Double, Vector, Integer>) (label, x) ->
        (int) (CalibrationHash.unit(5L, label, x) * 3), DataTypes.IntegerType);
    Dataset<Row> folds = data.withColumn("fold", fold.apply(functions.col("label"),
        functions.col("features")));
    List<Double> margins = new ArrayList<>();
    List<Integer> classes = new ArrayList<>();
    for (int f = 0; f < 3; f++) {
      PerceptronClassificationModel foldModel = estimator.copy(
          ParamMap.empty()).setCalibration("none")
          .fit(folds.filter(functions.col("fold").notEqual(f)));
      for (Row r : folds.filter(functions.col("fold").equalTo(f)).collectAsList()) {
        margins.add(foldModel.predictRaw(r.getAs("features")).apply(1));
        classes.add((int) r.getDouble(0));
      }
    }
    double[] m = margins.stream().mapToDouble(Double::doubleValue).toArray();
    int[] y = classes.stream().mapToInt(Integer::intValue).toArray();
    assertArrayEquals(PlattScaling.fit(m, y, ones(m.length), m.length),
        model.calibrator().parameters(), 1e-9);
    assertEquals(3, model.getCalibrationFolds());

    assertThrows(IllegalArgumentException.class, () -> estimator.copy(
        ParamMap.empty()).setCalibrationFolds(1).fit(data));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> estimator.copy(ParamMap.empty()).setCalibrationFolds(2)
            .setValidationIndicatorCol("v").fit(data.withColumn("v", functions.lit(false))));
    assertEquals("calibrationFolds=2 and validationIndicatorCol both choose the calibration"
        + " rows; set one of them", e.getMessage());
  }

  /**
   * Small inputs fit their fold models side by side, in driver threads of their own: the same
   * calibrator, bit for bit, as the folds fitted one after another, binary and multiclass.
   */
  @Test
  void foldsFittedSideBySideGiveTheCalibratorOfFoldsFittedOneAfterAnother() {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(SPARK.sparkContext());
    Object[][] cases = {{"breast_cancer", 30, 3, "sigmoid"}, {"iris", 4, 4, "isotonic"}};
    for (Object[] c : cases) {
      Dataset<Row> data = TestData.frame(SPARK, TestData.readLibSvm(
          TestData.sharedData((String) c[0], "train.libsvm"), (int) c[1]), 2);
      int k = (int) c[2];
      PerceptronClassifier estimator = new PerceptronClassifier().setNumWorkers(2).setMaxIter(3)
          .setSeed(11).setCalibration((String) c[3]).setCalibrationFolds(k);
      PerceptronClassificationModel model = estimator.copy(ParamMap.empty())
          .setCalibration("none").setCalibrationFolds(0).fit(data);
      try (TrainingInput input = TrainingInput.prepare(data,
          TrainingPlan.forFit(jsc, estimator.trainingConfig()))) {
        double[] oneAfterAnother = ModelCalibration.crossFitted(estimator, input, model, k, null,
            1).parameters();
        double[] sideBySide = ModelCalibration.crossFitted(estimator, input, model, k, null, k)
            .parameters();
        assertArrayEquals(oneAfterAnother, sideBySide, 0.0, c[0] + ": the same calibrator");
        assertArrayEquals(oneAfterAnother, estimator.fit(data).calibrator().parameters(), 0.0,
            c[0] + ": fit's calibrator");
      }
    }
  }

  @Test
  void theSameDataWorkersAndSeedGiveTheSameCalibratorBitForBit() {
    for (String method : new String[] {"sigmoid", "isotonic"}) {
      PerceptronClassifier estimator = new PerceptronClassifier().setNumWorkers(2)
          .setMaxIter(3).setCalibration(method);
      Dataset<Row> data = TestData.frameInOrder(SPARK, cancer, 3);
      PerceptronClassificationModel a = estimator.fit(data);
      PerceptronClassificationModel b = estimator.fit(data);
      assertArrayEquals(a.calibrator().parameters(), b.calibrator().parameters(), 0.0);
      IsotonicSteps[] sa = a.calibrator().steps();
      IsotonicSteps[] sb = b.calibrator().steps();
      assertEquals(sa.length, sb.length);
      for (int i = 0; i < sa.length; i++) {
        assertArrayEquals(sa[i].boundaries(), sb[i].boundaries(), 0.0);
        assertArrayEquals(sa[i].values(), sb[i].values(), 0.0);
      }
    }
  }

  /** calibrate(rows) fits on exactly those rows: isotonic regression of their margins. */
  @Test
  void calibrateFitsOnTheGivenRowsAndKeepsThePredictions() {
    List<TestData.Example> train = cancer.subList(0, 300);
    List<TestData.Example> heldOut = cancer.subList(300, cancer.size());
    PerceptronClassificationModel model = new PerceptronClassifier().setCalibration("none")
        .setMaxIter(4).fit(TestData.frame(SPARK, train, 2));
    PerceptronClassificationModel calibrated = model.calibrate(
        TestData.frame(SPARK, heldOut, 2), "isotonic");
    assertEquals("none", model.getCalibration());
    assertEquals("isotonic", calibrated.getCalibration());
    double[] m = margins(model, heldOut);
    IsotonicSteps expected = IsotonicSteps.fit(m, labels(heldOut),
        ones(m.length), m.length);
    IsotonicSteps got = calibrated.calibrator().steps()[0];
    assertArrayEquals(expected.boundaries(), got.boundaries(), 0.0);
    // Weighted means of 0/1 targets pooled in another row order: a few ulps.
    assertArrayEquals(expected.values(), got.values(), 1e-15);
    for (TestData.Example e : heldOut) {
      assertEquals(model.predict(e.features), calibrated.predict(e.features), 0.0);
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> model.calibrate(TestData.frame(SPARK, heldOut, 2), "platt"));
    assertEquals("calibration must be one of [none, sigmoid, isotonic], got 'platt'",
        e.getMessage());
  }

  @Test
  void validationRowsOfOneClassStopTheFitWithAMessage() {
    Dataset<Row> data = TestData.frameInOrder(SPARK, cancer, 1).withColumn("isValidation",
        functions.col("label").equalTo(1.0).and(functions.monotonically_increasing_id().lt(100)));
    PerceptronClassifier estimator = new PerceptronClassifier().setMaxIter(2)
        .setValidationIndicatorCol("isValidation");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> estimator.fit(data));
    assertEquals("calibration=sigmoid on the validation rows (validationIndicatorCol"
        + " 'isValidation'): the calibration rows hold no row of class 0 (with a positive"
        + " weight), so no map from scores to probabilities can be fitted; calibrate on rows of"
        + " both classes, or set calibration=none", e.getMessage());
    assertEquals("none", estimator.setCalibration("none").fit(data).getCalibration());
  }

  /** A single class makes the constant model: its probability is 1, and no calibrator. */
  @Test
  void aSingleClassGivesItsClassProbabilityOne() {
    List<TestData.Example> ones = new ArrayList<>();
    for (TestData.Example e : cancer) {
      if (e.label == 1.0) {
        ones.add(e);
      }
    }
    PerceptronClassificationModel model = new PerceptronClassifier().setNumWorkers(1)
        .fit(TestData.frame(SPARK, ones, 1));
    assertEquals(CalibrationMethod.NONE, model.calibrator().method());
    assertEquals("none", model.getCalibration());
    Vector p = model.predictProbability(cancer.get(0).features);
    assertArrayEquals(new double[] {0.0, 1.0}, p.toArray(), 0.0);
  }

  /** A stream's model (EngineBridge.model) is the raw link, whatever the estimator asked. */
  @Test
  void aStreamsModelIsUncalibrated() {
    PerceptronClassifier params = new PerceptronClassifier().setCalibration("isotonic");
    PerceptronClassificationModel model = EngineBridge.model(params, 2, 3,
        new LinearState(new double[] {1, -1, 0.5, 0}, null, 0));
    assertEquals("none", model.getCalibration());
    double m = model.predictRaw(Vectors.dense(1, 0, 0)).apply(1);
    assertEquals(1 / (1 + Math.exp(-m)), model.predictProbability(
        Vectors.dense(1, 0, 0)).apply(1), 0.0);
  }
}
