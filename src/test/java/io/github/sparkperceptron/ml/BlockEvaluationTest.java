package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.io.LabeledData;
import io.github.sparkperceptron.internal.io.LibSvmSource;
import io.github.sparkperceptron.internal.io.ReadSpec;
import io.github.sparkperceptron.internal.io.TextInput;
import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.evaluation.BinaryClassificationEvaluator;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The jobs' evaluation on cached blocks (one pass over the blocks the one-pass reader built)
 * gives the metrics of {@code model.evaluate} on a DataFrame of the same rows: the same confusion
 * matrix, row for row, and the same curve areas; and those are Spark's
 * {@code BinaryClassificationEvaluator}'s on the shared data sets: to 1e-13 where the ranking has
 * fewer than 2000 distinct scores (every score a point), within 1e-4 where Spark bins them (it
 * groups its bins within each partition of a sort whose cuts move; see ScoreRankingTest).
 */
class BlockEvaluationTest {
  private static SparkSession spark;
  private static JavaSparkContext jsc;

  @BeforeAll
  static void session() {
    spark = SparkTestSupport.spark();
    jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
  }

  /** The model, trained on the set's training file, evaluated both ways on {@code file}. */
  private static void assertSameEvaluation(String set, String file, double binnedTolerance) {
    String train = TestData.sharedData(set, "train.libsvm").toString();
    String scored = TestData.sharedData(set, file).toString();
    PerceptronClassifier estimator = new PerceptronClassifier().setMaxIter(3);
    PerceptronClassificationModel model = estimator.fit(LibSvmSource.read(spark, train,
        ReadSpec.labelled(), "training data").frame());
    ReadSpec width = ReadSpec.labelled().withNumFeatures(model.numFeatures(), "the model");
    LabeledData frame = LibSvmSource.read(spark, scored, width, "scored data");
    PerceptronClassificationSummary expected = model.evaluate(frame.frame());
    TextInput text = TextInput.plan(spark, scored, TextInput.Format.LIBSVM, width,
        "scored data", 3);
    PerceptronClassificationSummary actual;
    try (TrainingInput blocks = TrainingInput.forScoring(jsc, text,
        EngineBridge.config(estimator))) {
      actual = EngineBridge.evaluate(model, blocks);
    }
    String what = set + "/" + file;
    assertEquals(expected.numInstances(), actual.numInstances(), what);
    Matrix a = expected.confusionMatrix();
    Matrix b = actual.confusionMatrix();
    for (int i = 0; i < a.numRows(); i++) {
      for (int j = 0; j < a.numCols(); j++) {
        assertEquals(a.apply(i, j), b.apply(i, j), 0.0, what + ": cell " + i + "," + j);
      }
    }
    assertEquals(expected.accuracy(), actual.accuracy(), 0.0, what);
    if (model.numClasses() != 2) {
      return;
    }
    // The same ranking, summed in the same order; a dense block's margin may be a zero of the
    // other sign than the sparse vector's, a score of its own: 1e-10 allows for that, no more
    // (the areas are sums of at most 2·10^5 terms of at most 1).
    assertEquals(expected.areaUnderROC(), actual.areaUnderROC(), 1e-10, what);
    assertEquals(expected.areaUnderPR(), actual.areaUnderPR(), 1e-10, what);
    for (String metric : new String[] {"areaUnderROC", "areaUnderPR"}) {
      double spark = new BinaryClassificationEvaluator().setMetricName(metric)
          .setRawPredictionCol(expected.scoreCol()).setLabelCol(expected.labelCol())
          .evaluate(expected.predictions());
      assertEquals(spark, metric.equals("areaUnderROC") ? actual.areaUnderROC()
          : actual.areaUnderPR(), binnedTolerance, what + ": Spark's " + metric);
    }
  }

  @Test
  void blocksGiveTheMetricsOfADataFrameOfTheSameRowsOnTheSharedSets() {
    assertSameEvaluation("breast_cancer", "test.libsvm", 1e-13);
    assertSameEvaluation("breast_cancer", "train.libsvm", 1e-13);
    assertSameEvaluation("spark_sample_libsvm", "test.libsvm", 1e-13);
    assertSameEvaluation("iris", "test.libsvm", 0);
  }

  /**
   * The training blocks the train job evaluates hold each worker's rows numbered by its own
   * features (sparse data: spark_sample_libsvm's 692 columns); scored there they give the
   * metrics of the same rows given whole, for a linear model and for a vote.
   */
  @ParameterizedTest
  @ValueSource(strings = {"average", "vote"})
  void trainingBlocksOfLocalFeatureNumbersGiveTheMetricsOfTheirRows(String averaging) {
    String train = TestData.sharedData("spark_sample_libsvm", "train.libsvm").toString();
    PerceptronClassifier estimator = new PerceptronClassifier().setMaxIter(3).setNumWorkers(2)
        .setAveraging(averaging);
    TextInput text = TextInput.plan(spark, train, TextInput.Format.LIBSVM, ReadSpec.labelled(),
        "training data", 2);
    try (TrainingInput blocks = TrainingInput.fromText(jsc, text,
        TrainingPlan.forFit(jsc, EngineBridge.config(estimator)))) {
      PerceptronClassificationModel model = EngineBridge.fit(estimator, blocks);
      LabeledData frame = LibSvmSource.read(spark, train, ReadSpec.labelled()
          .withNumFeatures(model.numFeatures(), "the model"), "training data");
      PerceptronClassificationSummary expected = model.evaluate(frame.frame());
      PerceptronClassificationSummary actual = EngineBridge.evaluate(model, blocks);
      assertEquals(expected.accuracy(), actual.accuracy(), 0.0, averaging);
      // The same scores in another order of rows: the areas' sums may differ in rounding.
      assertEquals(expected.areaUnderROC(), actual.areaUnderROC(), 1e-12, averaging);
      assertEquals(expected.accuracy(), EngineBridge.accuracy(model, blocks), 0.0, averaging);
    }
  }

  @Test
  // More than 8 s on an idle 2-core machine (196,045 training rows): `mvn verify` runs it.
  @org.junit.jupiter.api.Tag("slow")
  void aBinnedRankingIsWithinSparksBinning() {
    assertSameEvaluation("skin_nonskin", "test.libsvm.gz", 1e-4);
  }
}
