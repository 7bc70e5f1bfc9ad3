package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.calibration.CalibrationMethod;
import io.github.sparkperceptron.internal.calibration.Calibrator;
import io.github.sparkperceptron.internal.evaluation.ProbabilityMetrics;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.classification.OneVsRest;
import org.apache.spark.ml.classification.OneVsRestModel;
import org.apache.spark.ml.classification.ProbabilisticClassificationModel;
import org.apache.spark.ml.evaluation.BinaryClassificationEvaluator;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.tuning.CrossValidator;
import org.apache.spark.ml.tuning.CrossValidatorModel;
import org.apache.spark.ml.tuning.ParamGridBuilder;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The model's probabilities through Spark ML's own contract: a {@code probability} column that
 * Spark's evaluators, {@code CrossValidator} and {@code OneVsRest} read, {@code thresholds} with
 * Spark's rule, predictions that a calibrator never changes, and calibrators that survive saving.
 */
class ProbabilityContractTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static Dataset<Row> cancer;
  private static Dataset<Row> cancerTest;
  private static Dataset<Row> iris;

  @TempDir
  Path tmp;

  @BeforeAll
  static void data() {
    cancer = TestData.frame(SPARK, TestData.readLibSvm(
        TestData.sharedData("breast_cancer", "train.libsvm"), 30), 2).cache();
    cancerTest = TestData.frame(SPARK, TestData.readLibSvm(
        TestData.sharedData("breast_cancer", "test.libsvm"), 30), 2).cache();
    iris = TestData.frame(SPARK, TestData.readLibSvm(
        TestData.sharedData("iris", "train.libsvm"), 4), 2).cache();
  }

  private static PerceptronClassifier estimator() {
    return new PerceptronClassifier().setMaxIter(5).setNumWorkers(2);
  }

  /** {@link #fitted}'s models, by calibration and data. */
  private static final Map<String, PerceptronClassificationModel> FITTED = new HashMap<>();

  /**
   * {@link #estimator()} with {@code calibration}, fitted on {@code data} once per class: a fit
   * is a pure function of the data, params and seed, and the tests only read the model.
   */
  private static PerceptronClassificationModel fitted(String calibration, Dataset<Row> data) {
    String name = data == cancer ? "cancer" : data == cancerTest ? "cancerTest"
        : data == iris ? "iris" : null;
    if (name == null) {
      throw new IllegalArgumentException("not one of the class's data sets");
    }
    return FITTED.computeIfAbsent(calibration + " " + name,
        k -> estimator().setCalibration(calibration).fit(data));
  }

  @Test
  void theModelIsSparksProbabilisticModelAndSigmoidIsTheDefault() {
    PerceptronClassificationModel model = fitted("sigmoid", cancer);
    assertInstanceOf(ProbabilisticClassificationModel.class, model);
    assertEquals("sigmoid", model.getCalibration());
    assertEquals(CalibrationMethod.SIGMOID, model.calibrator().method());
    double[] ab = model.calibrator().parameters();
    for (Row r : model.transform(cancerTest).select("features", "rawPrediction", "probability")
        .collectAsList()) {
      double m = r.<Vector>getAs(1).apply(1);
      double[] p = r.<Vector>getAs(2).toArray();
      // Platt's formula from the fitted A and B, evaluated here: the same operations.
      assertEquals(1 / (1 + Math.exp(ab[0] * m + ab[1])), p[1], 0.0);
      assertEquals(1 - p[1], p[0], 0.0);
      assertArrayEquals(p, model.predictProbability(r.getAs(0)).toArray(), 0.0);
    }
  }

  /**
   * Where every calibration trains on the same rows (breast_cancer's 455 hold too few of class 0
   * out, so the default trains on every row and cross-fits), the weights, raw predictions and
   * predictions are the same bits whatever the calibrator: it only maps scores.
   */
  @Test
  void theCalibratorOnlyMapsTheScoresOfTheSameWeights() {
    List<Row> reference = null;
    for (String method : new String[] {"none", "sigmoid", "isotonic"}) {
      PerceptronClassificationModel model = fitted(method, cancer);
      assertEquals(method, model.getCalibration());
      List<Row> rows = model.transform(cancerTest).select("rawPrediction", "prediction")
          .orderBy("rawPrediction").collectAsList();
      if (reference == null) {
        reference = rows;
      } else {
        assertEquals(reference, rows, method);
      }
    }
  }

  @Test
  void noneGivesTheLogisticAndSoftmaxLinks() {
    PerceptronClassificationModel binary = fitted("none", cancer);
    Row r = binary.transform(cancerTest).select("rawPrediction", "probability").first();
    double m = r.<Vector>getAs(0).apply(1);
    assertEquals(1 / (1 + Math.exp(-m)), r.<Vector>getAs(1).apply(1), 0.0);
    PerceptronClassificationModel multi = fitted("none", iris);
    Row q = multi.transform(iris).select("rawPrediction", "probability").first();
    double[] z = q.<Vector>getAs(0).toArray();
    double[] p = q.<Vector>getAs(1).toArray();
    double max = Math.max(z[0], Math.max(z[1], z[2]));
    double sum = Math.exp(z[0] - max) + Math.exp(z[1] - max) + Math.exp(z[2] - max);
    for (int k = 0; k < 3; k++) {
      assertEquals(Math.exp(z[k] - max) / sum, p[k], 1e-15);
    }
  }

  /**
   * Spark's evaluators read the column: MulticlassClassificationEvaluator's logLoss is our
   * ProbabilityMetrics' log-loss of the same rows (the same clip, 1e-15), and ranking by the
   * probability gives the area under ROC of the margin (Platt's sigmoid is decreasing in A·m,
   * with A &lt; 0: the same order).
   */
  @Test
  void sparksEvaluatorsReadTheProbabilities() {
    PerceptronClassificationModel model = fitted("sigmoid", cancer);
    Dataset<Row> scored = model.transform(cancerTest).cache();
    double sparkLogLoss = new MulticlassClassificationEvaluator().setMetricName("logLoss")
        .evaluate(scored);
    ProbabilityMetrics ours = new ProbabilityMetrics(2);
    for (Row r : scored.select("label", "probability").collectAsList()) {
      ours.add(r.<Vector>getAs(1).toArray(), (int) r.getDouble(0), 1.0);
    }
    // Means of 114 logs in another order of summation.
    assertEquals(sparkLogLoss, ours.logLoss(), 1e-13);
    assertTrue(model.calibrator().parameters()[0] < 0);
    double byRaw = new BinaryClassificationEvaluator().evaluate(scored);
    double byProbability = new BinaryClassificationEvaluator().setRawPredictionCol("probability")
        .evaluate(scored);
    assertEquals(byRaw, byProbability, 1e-12);
  }

  /** With thresholds, Spark's rule: the class of the largest p_k / t_k. */
  @Test
  void thresholdsPredictBySparksRuleOnTheProbabilities() {
    // A copy: the shared model stays without thresholds.
    PerceptronClassificationModel model = fitted("sigmoid", iris).copy(ParamMap.empty());
    model.setThresholds(new double[] {0.2, 0.5, 0.3});
    for (Row r : model.transform(iris).select("features", "probability", "prediction")
        .collectAsList()) {
      double[] p = r.<Vector>getAs(1).toArray();
      int best = 0;
      double[] scaled = {p[0] / 0.2, p[1] / 0.5, p[2] / 0.3};
      for (int k = 1; k < 3; k++) {
        best = scaled[k] > scaled[best] ? k : best;
      }
      assertEquals(best, r.getDouble(2), 0.0);
      assertEquals(best, model.predict(r.getAs(0)), 0.0);
    }
    // Without a probability column the rule is the same, from the raw prediction.
    PerceptronClassificationModel noProbability = model.copy(ParamMap.empty())
        .setProbabilityCol("");
    assertEquals(model.transform(iris).select("prediction").collectAsList(),
        noProbability.transform(iris).select("prediction").collectAsList());
    // Spark checks the length on the model's setter; one copied from the estimator, here.
    PerceptronClassificationModel mismatched = estimator()
        .setThresholds(new double[] {0.5, 0.5}).fit(iris);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> mismatched.transform(iris));
    assertEquals("thresholds has 2 values, but this model has 3 classes; give one threshold per"
        + " class (or clear thresholds to predict by the margin and threshold)", e.getMessage());
  }

  @Test
  void crossValidatorSelectsByLogLoss() {
    PerceptronClassifier perceptron = estimator();
    CrossValidator cv = new CrossValidator().setEstimator(perceptron)
        .setEstimatorParamMaps(new ParamGridBuilder()
            .addGrid(perceptron.calibration(), CollectionConverters.asScala(
                List.of("none", "sigmoid")))
            .build())
        .setEvaluator(new MulticlassClassificationEvaluator().setMetricName("logLoss"))
        .setNumFolds(2).setSeed(3);
    CrossValidatorModel best = cv.fit(cancer);
    double[] metrics = best.avgMetrics();
    // Log-loss is smaller-is-better: the raw link of margins in the tens is nearly 0 or 1 on
    // every row, so the calibrated fold models win by a wide margin.
    assertTrue(metrics[1] < metrics[0], Arrays.toString(metrics));
    assertEquals("sigmoid", ((PerceptronClassificationModel) best.bestModel()).getCalibration());
  }

  @Test
  void oneVsRestTrainsCalibratedPerceptrons() {
    OneVsRestModel ovr = new OneVsRest().setClassifier(estimator()).fit(iris);
    double accuracy = new MulticlassClassificationEvaluator().setMetricName("accuracy")
        .evaluate(ovr.transform(iris));
    assertTrue(accuracy > 0.8, "one-vs-rest accuracy " + accuracy);
  }

  /** Each kind of calibrator (Platt, temperature, isotonic one and per class) saves and loads. */
  @ParameterizedTest
  @ValueSource(strings = {"sigmoid 2", "sigmoid 3", "isotonic 2", "isotonic 3"})
  void savedModelsKeepTheirCalibrator(String methodAndClasses) throws Exception {
    String method = methodAndClasses.split(" ")[0];
    Dataset<Row> data = methodAndClasses.endsWith("2") ? cancerTest : iris;
    PerceptronClassificationModel model = fitted(method, data);
    Path dir = tmp.resolve("model");
    model.write().save(dir.toString());
    PerceptronClassificationModel loaded = PerceptronClassificationModel.load(dir.toString());
    assertEquals(method, loaded.getCalibration());
    assertEquals(model.transform(data).select("probability").collectAsList(),
        loaded.transform(data).select("probability").collectAsList(), methodAndClasses);
  }

  @Test
  void aPipelineKeepsItsCalibrator() throws Exception {
    PipelineModel pipeline = new Pipeline().setStages(new PipelineStage[] {
        estimator().setCalibration("isotonic")}).fit(iris);
    pipeline.write().save(tmp.resolve("pipeline").toString());
    PipelineModel loaded = PipelineModel.load(tmp.resolve("pipeline").toString());
    assertEquals(pipeline.transform(iris).select("probability").collectAsList(),
        loaded.transform(iris).select("probability").collectAsList());
    assertEquals("isotonic", ((PerceptronClassificationModel) loaded.stages()[0])
        .getCalibration());
  }

  @Test
  void aDamagedCalibratorIsRefusedWithAMessage() throws Exception {
    PerceptronClassificationModel model = fitted("sigmoid", cancer);
    Path dir = tmp.resolve("damaged");
    model.write().save(dir.toString());
    // A calibrator of another model (3 classes) in its place.
    org.apache.commons.io.FileUtils.deleteDirectory(dir.resolve("calibration").toFile());
    CalibratorFiles.save(SPARK, Calibrator.none(3), dir.toString());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PerceptronClassificationModel.load(dir.toString()));
    assertEquals("'" + dir.resolve("calibration") + "' does not hold a readable calibrator (row"
        + " 0 does not belong to a none calibrator of this 2-class model); the model directory"
        + " is damaged or was written by another program", e.getMessage());
    org.apache.commons.io.FileUtils.deleteDirectory(dir.resolve("calibration").toFile());
    e = assertThrows(IllegalArgumentException.class,
        () -> PerceptronClassificationModel.load(dir.toString()));
    assertTrue(e.getMessage().contains("(it is missing, although the model's format version"),
        e.getMessage());
  }
}
