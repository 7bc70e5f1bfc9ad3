package io.github.sparkperceptron.ml;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/** Early stopping on the rows {@code validationIndicatorCol} marks. */
class EarlyStoppingTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();

  /**
   * An overfitting setup: the label depends on 5 of 205 Gaussian features (plus noise), and there
   * are only 300 training rows, so the perceptron can fit the 200 irrelevant features: training
   * mistakes fall towards zero while accuracy on the other 300 (validation) rows peaks and then
   * declines. Measured when written: validation accuracy peaks at 0.75 in epoch 12.
   */
  private static Dataset<Row> overfittingData() {
    Random rnd = new Random(3);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      double[] x = new double[205];
      double signal = 0;
      for (int j = 0; j < x.length; j++) {
        x[j] = rnd.nextGaussian();
      }
      for (int j = 0; j < 5; j++) {
        signal += x[j];
      }
      double label = signal + 0.8 * rnd.nextGaussian() > 0 ? 1 : 0;
      rows.add(RowFactory.create(label, Vectors.dense(x), i % 2 == 0));
    }
    return SPARK.createDataFrame(new JavaSparkContext(
        SPARK.sparkContext()).parallelize(rows, 2),
        TestData.SCHEMA.add("isValidation", DataTypes.BooleanType, false));
  }

  @Test
  void returnsThePeakEpochsModelWhileTrainingAccuracyKeepsRising() {
    Dataset<Row> data = overfittingData().cache();
    int patience = 4;
    PerceptronClassificationModel model = new PerceptronClassifier().setMaxIter(60)
        .setValidationIndicatorCol("isValidation").setValidationPatience(patience).fit(data);
    PerceptronTrainingSummary s = model.summary();

    double[] history = s.validationHistory();
    long[] trainingMistakes = s.mistakesHistory();
    assertEquals(s.totalIterations(), history.length);
    int best = s.modelEpoch();
    assertEquals(StopReason.VALIDATION, s.stopReason());
    assertEquals(best + patience, s.totalIterations(), "stops after exactly `patience` epochs");
    assertTrue(best > 1, "validation accuracy must peak after the first epoch: " + best);
    for (int e = 0; e < history.length; e++) {
      if (e + 1 < best) {
        assertTrue(history[e] <= history[best - 1], "an earlier epoch beat the returned one");
      } else if (e + 1 > best) {
        assertTrue(history[e] < history[best - 1], "a later epoch matched the returned one");
      }
    }
    assertTrue(trainingMistakes[history.length - 1] < trainingMistakes[best - 1],
        "training kept improving after the validation peak: "
            + Arrays.toString(trainingMistakes));

    // The returned model is the one plain training for `best` epochs gives on the training rows
    // (same partitions and order, since validation rows are only held out).
    PerceptronClassificationModel reference = new PerceptronClassifier().setMaxIter(best)
        .fit(data.filter(col("isValidation").equalTo(false)));
    assertArrayEquals(reference.coefficients().toArray(), model.coefficients().toArray(), 0.0);
    assertEquals(reference.intercept(), model.intercept(), 0.0);

    // Its validation accuracy is the recorded peak.
    List<Row> validation = data.filter(col("isValidation")).collectAsList();
    long correct = validation.stream().filter(r -> model.predict(
        (Vector) r.get(1)) == r.getDouble(0)).count();
    assertEquals(history[best - 1], correct / (double) validation.size(), 1e-12);
    data.unpersist();
  }

  /** Noisy training labels, clean validation labels: for the averaging modes. */
  private static Dataset<Row> noisyTrainCleanValidation() {
    TestData.Separable clean = TestData.separable(21, 900, 8, 0.05, 2);
    Random flip = new Random(5);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < clean.examples.size(); i++) {
      TestData.Example e = clean.examples.get(i);
      boolean validation = i % 3 == 0;
      double label = !validation && flip.nextDouble() < 0.25 ? 1 - e.label : e.label;
      rows.add(RowFactory.create(label, e.features, validation));
    }
    return SPARK.createDataFrame(new JavaSparkContext(
        SPARK.sparkContext()).parallelize(rows, 2),
        TestData.SCHEMA.add("isValidation", DataTypes.BooleanType, false));
  }

  @Test
  void worksWithAveragingAndTheVote() {
    Dataset<Row> data = noisyTrainCleanValidation();
    for (String averaging : new String[] {"average", "vote"}) {
      PerceptronClassificationModel model = new PerceptronClassifier().setAveraging(averaging)
          .setMaxIter(15).setValidationIndicatorCol("isValidation").fit(data);
      double[] history = model.summary().validationHistory();
      double peak = 0;
      for (double h : history) {
        peak = Math.max(peak, h);
      }
      assertEquals(peak, history[model.summary().modelEpoch() - 1], 0.0, averaging);
      // averaging smooths the flipped labels away: clean validation accuracy stays high
      assertTrue(peak > 0.9, averaging + " peak " + peak);
    }
  }

  @Test
  void badValidationSetupsAreRefused() {
    Dataset<Row> data = noisyTrainCleanValidation();
    IllegalArgumentException oneshot = assertThrows(IllegalArgumentException.class,
        () -> new PerceptronClassifier().setMixing("oneshot")
            .setValidationIndicatorCol("isValidation").fit(data));
    assertTrue(oneshot.getMessage().contains("mixing=oneshot"), oneshot.getMessage());

    IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
        () -> new PerceptronClassifier().setValidationIndicatorCol("isValidation")
            .fit(data.withColumn("isValidation", org.apache.spark.sql.functions.lit(false))));
    assertTrue(none.getMessage().contains("marks no row"), none.getMessage());

    IllegalArgumentException all = assertThrows(IllegalArgumentException.class,
        () -> new PerceptronClassifier().setValidationIndicatorCol("isValidation")
            .fit(data.withColumn("isValidation", org.apache.spark.sql.functions.lit(true))));
    assertTrue(all.getMessage().contains("none to train on"), all.getMessage());

    IllegalArgumentException type = assertThrows(IllegalArgumentException.class,
        () -> new PerceptronClassifier().setValidationIndicatorCol("label").fit(data));
    assertTrue(type.getMessage().contains("must be boolean"), type.getMessage());

    List<Row> rows = List.of(RowFactory.create(1.0, Vectors.dense(1, 2), null),
        RowFactory.create(0.0, Vectors.dense(2, 1), false));
    Dataset<Row> withNull = SPARK.createDataFrame(rows,
        TestData.SCHEMA.add("isValidation", DataTypes.BooleanType, true));
    IllegalArgumentException isNull = assertThrows(IllegalArgumentException.class,
        () -> new PerceptronClassifier().setValidationIndicatorCol("isValidation").fit(withNull));
    assertTrue(isNull.getMessage().contains("'isValidation' (validationIndicatorCol) is null"),
        isNull.getMessage());
  }
}
