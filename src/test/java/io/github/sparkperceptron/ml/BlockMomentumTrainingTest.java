package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.testing.SparkTestSupport;
import java.util.Arrays;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What block momentum is for: on many workers it keeps the accuracy that mean mixing loses.
 * Generated 10-class sparse data (8,000 rows, d = 200, 10 non-zeros per row, 5% label noise),
 * 5 epochs, held-out accuracy on 2,000 further rows.
 */
class BlockMomentumTrainingTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static final SyntheticData DATA = SyntheticData.builder().numFeatures(200)
      .nonZerosPerRow(10).numClasses(10).margin(0.05).labelNoise(0.05).seed(19).build();
  private static final Dataset<Row> TEST = DATA.frame(SPARK, 1_000_000, 2000, 2).cache();

  @AfterAll
  static void release() {
    TEST.unpersist();
  }

  /**
   * An estimator of {@code workers} workers for the tests that compare weights only: on 2,000
   * rows of 10 classes the default calibration falls back to cross-fitting, where the model
   * trains on every row (the same bits as with calibration=none) and three fold models more are
   * trained per fit for a calibrator no test here reads.
   */
  private static PerceptronClassifier weightsOnly(int workers) {
    return new PerceptronClassifier().setCalibration("none").setNumWorkers(workers);
  }

  private static double accuracy(String mixing, int workers) {
    PerceptronClassificationModel model = new PerceptronClassifier().setMixing(mixing)
        .setMaxIter(5).setSeed(3).setNumWorkers(workers)
        .fit(DATA.frame(SPARK, 0, 8000, workers));
    return new MulticlassClassificationEvaluator().setMetricName("accuracy")
        .evaluate(model.transform(TEST));
  }

  /**
   * The simulation behind BENCHMARKS.md gives, after 5 epochs: one worker about 0.76; 16 workers:
   * mistake mixing about 0.53, momentum about 0.77. The margins asserted leave room for the noise
   * of a 2,000-row test set but fail if momentum degrades to a mean.
   */
  @Test
  // More than 8 s on an idle 2-core machine: `mvn verify` runs it, `mvn test` does not.
  @Tag("slow")
  void momentumKeepsTheOneWorkerAccuracyWhereMistakeMixingLosesIt() {
    double one = accuracy("mistakes", 1);
    double mistakes = accuracy("mistakes", 16);
    double momentum = accuracy("momentum", 16);
    assertTrue(momentum >= mistakes + 0.15, "momentum " + momentum + " vs mistakes " + mistakes);
    assertTrue(momentum >= one - 0.03, "momentum " + momentum + " vs one worker " + one);
  }

  /** A voted model's coefficients are its averaged weights: the same training underneath. */
  @Test
  void theVoteTrainsAsTheAverageDoes() {
    Dataset<Row> frame = DATA.frame(SPARK, 0, 2000, 4).cache();
    PerceptronClassifier clf = weightsOnly(4).setMixing("momentum")
        .setMaxIter(3);
    PerceptronClassificationModel voted = clf.copy(new ParamMap())
        .setAveraging("vote").fit(frame);
    PerceptronClassificationModel averaged = clf.setAveraging("average").fit(frame);
    assertArrayEquals(averaged.coefficientMatrix().toArray(),
        voted.coefficientMatrix().toArray(), 0.0);
    assertTrue(voted.isVoted());
    frame.unpersist();
  }

  /**
   * Early stopping returns the best epoch's model, which is the model of a training stopped
   * there: block momentum's state carries nothing the model depends on beyond that epoch.
   */
  @Test
  void earlyStoppingReturnsTheModelOfTheBestEpoch() {
    Dataset<Row> frame = DATA.frame(SPARK, 0, 3000, 4)
        .withColumn("isValidation", org.apache.spark.sql.functions.rand(7).lt(0.3)).cache();
    PerceptronClassificationModel stopped = new PerceptronClassifier().setNumWorkers(4)
        .setMixing("momentum").setMaxIter(12).setValidationIndicatorCol("isValidation")
        .setValidationPatience(2).fit(frame);
    int best = stopped.summary().modelEpoch();
    PerceptronClassificationModel plain = new PerceptronClassifier().setNumWorkers(4)
        .setMixing("momentum").setMaxIter(best).setTol(0.0)
        .setValidationIndicatorCol("isValidation").setValidationPatience(12).fit(frame);
    assertArrayEquals(plain.coefficientMatrix().toArray(),
        stopped.coefficientMatrix().toArray(), 0.0, "best epoch " + best);
    frame.unpersist();
  }

  /**
   * A warm start begins without momentum: its first round is a mistake-weighted mix from the
   * initial model's weights, so one epoch of one round equals mistake mixing's.
   */
  @Test
  void aWarmStartBeginsFromTheInitialModelWithoutMomentum() {
    Dataset<Row> frame = DATA.frame(SPARK, 0, 2000, 4).cache();
    PerceptronClassificationModel initial = weightsOnly(4)
        .setMaxIter(2).fit(frame);
    PerceptronClassifier oneRound = weightsOnly(4).setMaxIter(1)
        .setMixingRounds(1).setInitialModel(initial);
    double[] momentum = oneRound.copy(new ParamMap())
        .setMixing("momentum").fit(frame).coefficientMatrix().toArray();
    double[] mistakes = oneRound.setMixing("mistakes").fit(frame).coefficientMatrix().toArray();
    assertArrayEquals(mistakes, momentum, 0.0);
    double[] cold = weightsOnly(4).setMaxIter(1).setMixingRounds(1)
        .setMixing("momentum").fit(frame).coefficientMatrix().toArray();
    assertFalse(Arrays.equals(cold, momentum), "the initial model must matter");
    frame.unpersist();
  }

  @Test
  void momentumRunsAreBitIdentical() {
    Dataset<Row> frame = DATA.frame(SPARK, 0, 2000, 4).cache();
    PerceptronClassifier clf = weightsOnly(4).setMixing("momentum")
        .setMaxIter(3);
    double[] first = clf.fit(frame).coefficientMatrix().toArray();
    double[] second = clf.fit(frame).coefficientMatrix().toArray();
    assertArrayEquals(first, second, 0.0);
    frame.unpersist();
  }
}
