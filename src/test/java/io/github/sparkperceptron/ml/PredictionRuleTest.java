package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sparkperceptron.internal.kernel.DenseFeatureBlock;
import io.github.sparkperceptron.internal.kernel.FeatureBlock;
import io.github.sparkperceptron.internal.kernel.Predictor;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.junit.jupiter.api.Test;

/**
 * The prediction rule is the same wherever a prediction is made: the model's predict, its
 * raw2prediction of predictRaw, and the kernel's Predictor (validation scoring), on rows chosen
 * to hit the edge cases: a margin equal to the threshold, ties between classes.
 */
class PredictionRuleTest {
  /** Rows x = (a, b): exact small integers, so every score below is exact. */
  private static final double[][] XS = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, -1}, {-1, 2}, {3, 3}};

  private static FeatureBlock block() {
    double[] values = new double[XS.length * 2];
    for (int r = 0; r < XS.length; r++) {
      values[2 * r] = XS[r][0];
      values[2 * r + 1] = XS[r][1];
    }
    return new DenseFeatureBlock(XS.length, 2, values);
  }

  private static void assertOneRule(PerceptronClassificationModel model, int[] expected) {
    Predictor predictor = Predictor.linear(model.numClasses(), model.numFeatures(),
        model.getThreshold(), model.toStateWeights());
    FeatureBlock block = block();
    for (int r = 0; r < XS.length; r++) {
      Vector x = Vectors.dense(XS[r]);
      String where = "row " + r;
      assertEquals(expected[r], model.predict(x), 0.0, where);
      assertEquals(expected[r], model.raw2prediction(model.predictRaw(x)), 0.0, where);
      assertEquals(expected[r], predictor.predict(block, r, null, null), where);
    }
  }

  @Test
  void binaryPredictsOneOnlyAboveTheThreshold() {
    // margin = a + b − 1: rows give −1, 0, 0, 1, 0, 0, 5
    PerceptronClassificationModel model = new PerceptronClassificationModel("binary", 2, 2,
        new double[] {1, 1}, new double[] {-1}, null);
    assertOneRule(model, new int[] {0, 0, 0, 1, 0, 0, 1});
    model.setThreshold(-1); // now only the margin −1 is not above it
    assertOneRule(model, new int[] {0, 1, 1, 1, 1, 1, 1});
  }

  @Test
  void multiclassTiesGoToTheLowestClass() {
    // scores (a, b, a + b − 1): row (0,0) → 0, 0, −1: tie of 0 and 1 → 0; (1,0) → 1, 0, 0 → 0;
    // (0,1) → 0, 1, 0 → 1; (1,1) → 1, 1, 1 → 0; (2,−1) → 2, −1, 0 → 0; (−1,2) → −1, 2, 0 → 1;
    // (3,3) → 3, 3, 5 → 2
    PerceptronClassificationModel model = new PerceptronClassificationModel("multiclass", 3, 2,
        new double[] {1, 0, 0, 1, 1, 1}, new double[] {0, 0, -1}, null);
    assertOneRule(model, new int[] {0, 0, 1, 0, 0, 1, 2});
  }

  @Test
  void theRulesThemselves() {
    assertEquals(0, Predictor.binaryClass(0.0, 0.0), "a zero margin is class 0");
    assertEquals(1, Predictor.binaryClass(Double.MIN_VALUE, 0.0));
    assertEquals(0, Predictor.binaryClass(Double.NaN, 0.0));
    assertEquals(1, Predictor.argmax(new double[] {1, 2, 2}));
    assertEquals(0, Predictor.argmax(new double[] {0, 0, 0}));
  }
}
