package io.github.sparkperceptron.ml;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.Examples;
import io.github.sparkperceptron.testing.NaivePerceptron;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

class ClassWeightAndLossTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();

  /** Breast cancer with only every 12th malignant (class 0) row kept: 15 against 285. */
  private static List<TestData.Example> imbalanced() {
    List<TestData.Example> out = new ArrayList<>();
    int malignant = 0;
    for (TestData.Example e : TestData.readLibSvm(
        TestData.sharedData("breast_cancer", "train.libsvm"), 30)) {
      if (e.label == 1.0 || malignant++ % 12 == 0) {
        out.add(e);
      }
    }
    return out;
  }

  private static double recall(PerceptronClassificationModel model, List<TestData.Example> test,
      double label) {
    long n = test.stream().filter(e -> e.label == label).count();
    long hit = test.stream().filter(e -> e.label == label && model.predict(e.features) == label)
        .count();
    return hit / (double) n;
  }

  /**
   * classWeight=balanced raises the minority class's recall on held-out data, and equals the
   * documented recipe: a weight column holding N / (K·N_k).
   */
  @Test
  void balancedClassWeightHelpsTheMinorityAndEqualsTheWeightColumnRecipe() {
    List<TestData.Example> train = imbalanced();
    List<TestData.Example> test = TestData.readLibSvm(
        TestData.sharedData("breast_cancer", "test.libsvm"), 30);
    long minority = train.stream().filter(e -> e.label == 0.0).count();
    assertEquals(15, minority);
    Dataset<Row> frame = TestData.frameInOrder(SPARK, train, 1);

    // calibration=none: recall by prediction and weights compared; on these 300 rows (15 of
    // the minority) the default cross-fits three fold models more per fit, same weights.
    PerceptronClassifier base = new PerceptronClassifier().setAveraging("none").setMaxIter(10)
        .setNumWorkers(1).setCalibration("none");
    PerceptronClassificationModel plain = base.copy(new ParamMap())
        .fit(frame);
    PerceptronClassificationModel balanced = base.copy(new ParamMap())
        .setClassWeight("balanced").fit(frame);
    double plainRecall = recall(plain, test, 0.0);
    double balancedRecall = recall(balanced, test, 0.0);
    assertTrue(balancedRecall > plainRecall,
        "minority recall: plain " + plainRecall + ", balanced " + balancedRecall);

    double n = train.size();
    double w0 = n / (2 * minority);
    double w1 = n / (2 * (n - minority));
    Dataset<Row> weighted = frame.withColumn("w",
        when(col("label").equalTo(0.0), lit(w0)).otherwise(lit(w1)));
    PerceptronClassificationModel recipe = base.copy(new ParamMap())
        .setWeightCol("w").fit(weighted);
    assertArrayEquals(recipe.coefficients().toArray(), balanced.coefficients().toArray(), 0.0);
    assertEquals(recipe.intercept(), balanced.intercept(), 0.0);
  }

  /** The summary's losses are what a naive serial run measures before each update. */
  @Test
  void lossAndCountHistoriesMatchTheNaiveSerialRun() {
    for (String rule : new String[] {"perceptron", "pa1"}) {
      List<TestData.Example> train = TestData.readLibSvm(
          TestData.sharedData("iris", "train.libsvm"), 4);
      NaivePerceptron naive = new NaivePerceptron(4, 3, true, 1.0, false, rule, 1.0)
          .train(Examples.dense(train), Examples.labels(train), 5,
              NaivePerceptron.inOrder(train.size()));
      PerceptronTrainingSummary s = new PerceptronClassifier().setUpdateRule(rule)
          .setCalibration("none").setAveraging("none").setShuffle(false).setMaxIter(5).setTol(0)
          .setNumWorkers(1)
          .fit(TestData.frameInOrder(SPARK, train, 1)).summary();
      double[] loss = naive.perceptronLosses.stream().mapToDouble(Double::doubleValue).toArray();
      double[] hinge = naive.hingeLosses.stream().mapToDouble(Double::doubleValue).toArray();
      assertArrayEquals(loss, s.perceptronLossHistory(), 0.0, rule);
      assertArrayEquals(hinge, s.hingeLossHistory(), 0.0, rule);
      // The objective is the rule's own loss per unit of weight; every weight is 1 here, so the
      // same division of the same two numbers: exactly equal.
      double[] descended = rule.equals("perceptron") ? loss : hinge;
      double[] expectedObjective = new double[descended.length];
      for (int e = 0; e < descended.length; e++) {
        expectedObjective[e] = descended[e] / train.size();
      }
      assertArrayEquals(expectedObjective, s.objectiveHistory(), 0.0, rule);
      long[] updates = naive.updatesPerEpoch.stream().mapToLong(Long::longValue).toArray();
      long[] mistakes = naive.mistakesPerEpoch.stream().mapToLong(Long::longValue).toArray();
      assertArrayEquals(updates, s.updatesHistory(), rule);
      assertArrayEquals(mistakes, s.mistakesHistory(), rule);
      if (rule.equals("perceptron")) {
        assertArrayEquals(mistakes, updates, "the perceptron rule updates on its mistakes only");
      } else {
        assertTrue(updates[0] > mistakes[0], "pa1 also updates inside the margin: "
            + updates[0] + " updates, " + mistakes[0] + " mistakes");
      }
      assertTrue(hinge[hinge.length - 1] < hinge[0], "the hinge loss falls: " + rule);
    }
  }
}
