package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.List;
import org.apache.spark.ml.evaluation.BinaryClassificationEvaluator;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * {@code model.evaluate}: the metrics against a confusion matrix worked out by hand and against
 * Spark's own {@code MulticlassClassificationEvaluator} (MulticlassMetrics) on the same
 * predictions.
 */
class ModelEvaluationTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static final StructType WEIGHTED = new StructType()
      .add("label", DataTypes.DoubleType).add("features", SQLDataTypes.VectorType())
      .add("w", DataTypes.DoubleType);

  /** margin = x1 − x2: a binary model whose predictions are easy to work out by hand. */
  private static PerceptronClassificationModel difference() {
    return new PerceptronClassificationModel("perceptron_difference", 2, 2,
        new double[] {1, -1}, new double[] {0}, null);
  }

  private static Dataset<Row> rows(Object[]... rows) {
    return TestData.rows(SPARK, WEIGHTED, rows).repartition(2);
  }

  private static Object[] row(double label, double x1, double x2, double w) {
    return new Object[] {label, Vectors.dense(x1, x2), w};
  }

  /**
   * Six rows; margins 2, −1, −3, 1, 0, 4, so predictions 1, 0, 0, 1, 0 (a zero margin is class
   * 0), 1. Weighted confusion matrix C[label][prediction]:
   * <pre>
   *   label 0: predicted 0 by rows 3 (w 1) and 5 (w 0.5) = 1.5; predicted 1 by row 4 (w 3) = 3
   *   label 1: predicted 0 by row 2 (w 2) = 2;     predicted 1 by rows 1 and 6 (w 1 + 1) = 2
   * </pre>
   * Total weight 8.5; class weights 4.5 (label 0) and 4 (label 1).
   */
  private static Dataset<Row> handWorked() {
    return rows(row(1, 2, 0, 1), row(1, 0, 1, 2), row(0, 0, 3, 1), row(0, 1, 0, 3),
        row(0, 1, 1, 0.5), row(1, 5, 1, 1));
  }

  @Test
  void weightedMetricsMatchTheHandWorkedConfusionMatrix() {
    PerceptronClassificationModel model = difference();
    model.set(model.weightCol(), "w");
    PerceptronClassificationSummary s = model.evaluate(handWorked());
    // Tolerance 1e-15: each expected value is a few roundings of small numbers, computed here in
    // another order than the summary does.
    double tol = 1e-15;
    assertEquals(6, s.numInstances());
    assertEquals("w", s.weightCol());
    assertArrayEquals(new double[] {1.5, 2, 3, 2}, s.confusionMatrix().toArray(), 0.0,
        "column-major: C[0][0], C[1][0], C[0][1], C[1][1]");
    assertEquals(8.5, s.weightSum(), 0.0);
    assertEquals(3.5 / 8.5, s.accuracy(), tol);
    assertArrayEquals(new double[] {1.5 / 3.5, 2 / 5.0}, s.precisionByLabel(), tol);
    assertArrayEquals(new double[] {1.5 / 4.5, 2 / 4.0}, s.recallByLabel(), tol);
    assertArrayEquals(s.recallByLabel(), s.truePositiveRateByLabel(), 0.0);
    assertArrayEquals(new double[] {2 / 4.0, 3 / 4.5}, s.falsePositiveRateByLabel(), tol);
    double p0 = 1.5 / 3.5;
    double r0 = 1 / 3.0;
    double f0 = 2 * p0 * r0 / (p0 + r0);
    double f1 = 2 * 0.4 * 0.5 / 0.9;
    assertArrayEquals(new double[] {f0, f1}, s.fMeasureByLabel(), tol);
    double f2Of1 = 5 * 0.4 * 0.5 / (4 * 0.4 + 0.5);
    assertEquals(f2Of1, s.fMeasureByLabel(2.0)[1], tol);
    assertEquals((p0 * 4.5 + 0.4 * 4) / 8.5, s.weightedPrecision(), tol);
    assertEquals(s.accuracy(), s.weightedRecall(), tol);
    assertEquals((f0 * 4.5 + f1 * 4) / 8.5, s.weightedFMeasure(), tol);
    assertEquals((0.5 * 4.5 + 3 / 4.5 * 4) / 8.5, s.weightedFalsePositiveRate(), tol);
    assertArrayEquals(new double[] {0, 1}, s.labels(), 0.0);
  }

  @Test
  void withoutAWeightColumnEveryRowCountsOnce() {
    PerceptronClassificationSummary s = difference().evaluate(handWorked());
    assertEquals("", s.weightCol());
    assertArrayEquals(new double[] {2, 1, 1, 2}, s.confusionMatrix().toArray(), 0.0);
    assertEquals(4 / 6.0, s.accuracy(), 1e-15);
    // the positive rows score 2, −1, 4 and the negative ones −3, 1, 0: of the 9 (positive,
    // negative) pairs, 7 are ranked right (−1 is below 1 and 0), so the area under ROC is 7/9
    assertEquals(7 / 9.0, s.areaUnderROC(), 1e-12);
    assertTrue(s.areaUnderPR() > 0 && s.areaUnderPR() <= 1, "areaUnderPR " + s.areaUnderPR());
  }

  /** Spark's MulticlassMetrics, through its evaluator, on exactly the rows we evaluated. */
  private static double spark(PerceptronClassificationSummary s, String metric, double label,
      boolean weighted) {
    MulticlassClassificationEvaluator e = new MulticlassClassificationEvaluator()
        .setLabelCol(s.labelCol()).setPredictionCol(s.predictionCol()).setMetricName(metric)
        .setMetricLabel(label);
    if (weighted) {
      e.setWeightCol(s.weightCol());
    }
    return e.evaluate(s.predictions());
  }

  private static void assertAgreesWithSpark(PerceptronClassificationSummary s, boolean weighted) {
    // Both sides add the same weights in different orders: a few ulps apart at most.
    double tol = 1e-12;
    assertEquals(spark(s, "accuracy", 0, weighted), s.accuracy(), tol);
    assertEquals(spark(s, "weightedPrecision", 0, weighted), s.weightedPrecision(), tol);
    assertEquals(spark(s, "weightedRecall", 0, weighted), s.weightedRecall(), tol);
    assertEquals(spark(s, "f1", 0, weighted), s.weightedFMeasure(), tol);
    assertEquals(spark(s, "weightedFalsePositiveRate", 0, weighted),
        s.weightedFalsePositiveRate(), tol);
    for (int k = 0; k < s.numClasses(); k++) {
      assertEquals(spark(s, "precisionByLabel", k, weighted), s.precisionByLabel()[k], tol);
      assertEquals(spark(s, "recallByLabel", k, weighted), s.recallByLabel()[k], tol);
      assertEquals(spark(s, "fMeasureByLabel", k, weighted), s.fMeasureByLabel()[k], tol);
      assertEquals(spark(s, "falsePositiveRateByLabel", k, weighted),
          s.falsePositiveRateByLabel()[k], tol);
    }
  }

  @Test
  void multiclassMetricsAgreeWithSparksMulticlassMetrics() {
    Dataset<Row> iris = TestData.frame(SPARK,
        TestData.readLibSvm(TestData.sharedData("iris", "train.libsvm"), 4), 2)
        .withColumn("w", functions.rand(3).multiply(3)).cache();
    PerceptronClassificationModel model = new PerceptronClassifier().setMaxIter(3)
        .setAveraging("none").fit(iris);
    PerceptronClassificationSummary plain = model.evaluate(iris);
    assertTrue(plain.accuracy() > 0.5 && plain.accuracy() < 1,
        "a 3-epoch model errs on some rows, so every metric is exercised: " + plain.accuracy());
    assertAgreesWithSpark(plain, false);
    model.set(model.weightCol(), "w");
    assertAgreesWithSpark(model.evaluate(iris), true);
    assertThrows(IllegalStateException.class, plain::areaUnderROC);
  }

  @Test
  void binaryMetricsAgreeWithSparkAndTheTrainingWeightColumnIsUsed() {
    Dataset<Row> cancer = TestData.frame(SPARK,
        TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30), 2)
        .withColumn("w", functions.when(functions.col("label").equalTo(0.0), 2.0)
            .otherwise(0.5)).cache();
    PerceptronClassificationModel model = new PerceptronClassifier().setMaxIter(2)
        .setWeightCol("w").fit(cancer);
    assertEquals("w", model.getWeightCol());
    PerceptronClassificationSummary weighted = model.evaluate(cancer);
    assertEquals("w", weighted.weightCol());
    assertAgreesWithSpark(weighted, true);
    assertCurvesAreSparks(weighted, true);

    Dataset<Row> unweightedData = cancer.drop("w");
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
        () -> model.evaluate(unweightedData));
    assertTrue(missing.getMessage().contains("'w' (weightCol")
        && missing.getMessage().contains("model.weightCol(), \"\""), missing.getMessage());
    PerceptronClassificationSummary plain = model.copy(new ParamMap()
        .put(model.weightCol(), "")).evaluate(unweightedData);
    assertEquals(cancer.count(), plain.numInstances());
    assertEquals(cancer.count(), plain.weightSum(), 0.0);
    assertAgreesWithSpark(plain, false);
    assertCurvesAreSparks(plain, false);
  }

  /**
   * Both areas, computed together from one ranking, equal BinaryClassificationEvaluator's (one
   * ranking per area): the same BinaryClassificationMetrics on the same (score, label, weight)
   * rows, only built once. Equal up to the grouping of one sum: Spark range-partitions the
   * ranking by bounds sampled with seeds derived from the RDD's id (RangePartitioner.sketch),
   * which differs from one computation to the next, and sums the trapezoids partition by
   * partition, so the same curve's area can differ in its last bits (seen: 0.9912899896800825
   * against ...826). Regrouping a sum
   * of n ≤ 455 non-negative terms that total at most 1 moves it by at most about n·2⁻⁵² < 1e-13.
   */
  private static void assertCurvesAreSparks(PerceptronClassificationSummary s, boolean weighted) {
    for (String metric : List.of("areaUnderROC", "areaUnderPR")) {
      BinaryClassificationEvaluator e = new BinaryClassificationEvaluator()
          .setRawPredictionCol(s.scoreCol()).setLabelCol(s.labelCol()).setMetricName(metric);
      if (weighted) {
        e.setWeightCol(s.weightCol());
      }
      assertEquals(e.evaluate(s.predictions()),
          metric.equals("areaUnderROC") ? s.areaUnderROC() : s.areaUnderPR(), 1e-13, metric);
    }
  }

  @Test
  void labelsThatAreNotClassesAndBadWeightsAreRefused() {
    PerceptronClassificationModel model = difference();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> model.evaluate(rows(row(0, 1, 1, 1), row(2, 1, 1, 1))));
    assertEquals("Column 'label' (labelCol) has 2.0, which is not a class of this 2-class"
        + " model (0..1)", e.getMessage());
    model.set(model.weightCol(), "w");
    e = assertThrows(IllegalArgumentException.class,
        () -> model.evaluate(rows(row(0, 1, 1, 1), row(1, 1, 1, -1))));
    assertTrue(e.getMessage().startsWith("Column 'w' (weightCol) holds a null, negative"),
        e.getMessage());
  }

  @Test
  void outputColumnsSwitchedOffStillGetEvaluated() {
    PerceptronClassificationModel model = difference();
    model.setPredictionCol("").setRawPredictionCol("");
    PerceptronClassificationSummary s = model.evaluate(handWorked());
    assertEquals(4 / 6.0, s.accuracy(), 1e-15);
    assertTrue(s.predictionCol().startsWith("prediction_"), s.predictionCol());
    assertEquals("", model.getPredictionCol(), "the model itself is unchanged");
  }
}
