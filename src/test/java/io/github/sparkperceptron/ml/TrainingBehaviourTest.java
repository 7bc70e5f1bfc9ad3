package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** Warm starts, single-class data, prediction conventions and weights. */
class TrainingBehaviourTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();

  private static List<TestData.Example> breastCancer() {
    return TestData.readLibSvm(TestData.sharedData("breast_cancer", "train.libsvm"), 30);
  }

  /**
   * Without shuffling or averaging, N epochs then M more from the result equal N + M epochs:
   * under mistake mixing the weights are the whole state. (Momentum's velocity is not part of a
   * model, so a warm start begins without it: MomentumEqualsNaiveSimulationTest.)
   */
  @Test
  void warmStartContinuesTraining() {
    Dataset<Row> data = TestData.frameInOrder(SPARK, breastCancer(), 1);
    PerceptronClassifier clf = new PerceptronClassifier().setShuffle(false).setAveraging("none")
        .setMixing("mistakes").setTol(0.0);
    PerceptronClassificationModel three = clf.copy(new ParamMap())
        .setMaxIter(3).fit(data);
    PerceptronClassificationModel fivePlusThree = clf.copy(new ParamMap())
        .setMaxIter(5).setInitialModel(three).fit(data);
    PerceptronClassificationModel eight = clf.copy(new ParamMap())
        .setMaxIter(8).fit(data);
    assertArrayEquals(eight.coefficients().toArray(), fivePlusThree.coefficients().toArray(), 0.0);
    assertEquals(eight.intercept(), fivePlusThree.intercept(), 0.0);

    PerceptronClassificationModel untouched = clf.copy(new ParamMap())
        .setMaxIter(0).setInitialModel(three).fit(data);
    assertArrayEquals(three.coefficients().toArray(), untouched.coefficients().toArray(), 0.0);
  }

  @Test
  void singleClassDataTrainAModelThatPredictsThatClass() {
    List<TestData.Example> ones = new ArrayList<>();
    for (TestData.Example e : breastCancer()) {
      if (e.label == 1.0) {
        ones.add(e);
      }
    }
    PerceptronClassificationModel model = new PerceptronClassifier()
        .fit(TestData.frame(SPARK, ones, 2));
    assertEquals(StopReason.NOTHING_TO_TRAIN,
        model.summary().stopReason());
    for (TestData.Example e : breastCancer()) {
      assertEquals(1.0, model.predict(e.features), 0.0);
    }
    assertEquals(1.0, model.predict(Vectors.dense(new double[30])), 0.0);
    model.setThreshold(1e9);
    assertEquals(1.0, model.predict(Vectors.dense(new double[30])), 0.0);
  }

  @Test
  void rawPredictionIsMinusAndPlusTheMarginAndThresholdMovesTheCut() {
    Dataset<Row> data = TestData.frame(SPARK, breastCancer(), 2);
    // Raw scores and predictions, which a calibrator does not change: without the three fold
    // models the default cross-fits on these 455 rows.
    PerceptronClassificationModel model = new PerceptronClassifier().setCalibration("none")
        .fit(data);
    double[] w = model.coefficients().toArray();
    for (Row r : model.transform(data).select("features", "rawPrediction", "prediction")
        .collectAsList()) {
      double[] x = ((Vector) r.get(0)).toArray();
      double m = model.intercept();
      for (int j = 0; j < w.length; j++) {
        m += w[j] * x[j];
      }
      Vector raw = (Vector) r.get(1);
      assertEquals(-m, raw.apply(0), 1e-9);
      assertEquals(m, raw.apply(1), 1e-9);
      assertEquals(m > 0 ? 1.0 : 0.0, r.getDouble(2), 0.0);
    }
    model.setThreshold(1e9);
    assertEquals(0, model.transform(data).filter("prediction = 1").count());
  }

  /** Doubling every weight with the perceptron rule doubles every step: w scales by 2. */
  @Test
  void uniformSampleWeightActsAsAStepSize() {
    List<TestData.Example> examples = breastCancer();
    Dataset<Row> plain = TestData.frameInOrder(SPARK, examples, 2);
    Dataset<Row> doubled = plain.withColumn("w", org.apache.spark.sql.functions.lit(2.0));
    // The weights alone (calibration=none: no fold models to cross-fit).
    PerceptronClassificationModel a = new PerceptronClassifier().setStepSize(2.0)
        .setCalibration("none").fit(plain);
    PerceptronClassificationModel b = new PerceptronClassifier().setWeightCol("w")
        .setCalibration("none").fit(doubled);
    assertArrayEquals(a.coefficients().toArray(), b.coefficients().toArray(), 1e-12);
  }

  @Test
  void emptyPartitionsAreHarmless() {
    List<TestData.Example> few = new ArrayList<>();
    for (TestData.Example e : breastCancer()) {
      long sameLabel = few.stream().filter(f -> f.label == e.label).count();
      if (sameLabel < 2) {
        few.add(e);
      }
    }
    Dataset<Row> sparse = TestData.frameInOrder(SPARK, few, 8);
    PerceptronClassificationModel model = new PerceptronClassifier().setNumWorkers(8).fit(sparse);
    assertEquals(8, model.summary().numWorkers());
    assertTrue(model.summary().totalIterations() >= 1);
  }

  /** Features so large that dot products overflow: reported, never a silent NaN model. */
  @Test
  void overflowingWeightsAreDetectedAndReported() {
    List<TestData.Example> huge = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      huge.add(new TestData.Example(i % 2, Vectors.dense(1e200 * (i % 3 - 1), 1e200)));
    }
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class,
        () -> new PerceptronClassifier().fit(TestData.frame(SPARK, huge, 2)));
    assertTrue(e.getMessage().startsWith("Training diverged in epoch"), e.getMessage());
    assertTrue(e.getMessage().contains("StandardScaler"), e.getMessage());
  }
}
