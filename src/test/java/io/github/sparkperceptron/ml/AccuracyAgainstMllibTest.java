package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import org.apache.spark.ml.classification.LinearSVC;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The perceptron with its documented defaults against MLlib's linear classifiers (defaults),
 * trained and tested on the same split of each shared real data set.
 *
 * <p>Margins, in test rows: a test set of n rows measures accuracy in steps of 1/n, so the margin
 * is stated as rows the perceptron may lose to the better MLlib model: 2 of 114 (breast cancer),
 * 1 of 20 (Spark's sample), 1 of 30 (iris), and 1 point of 49,012 (skin), the target the project
 * promises for large data. Measured when written: perceptron 0.982 / 1.000 / 0.967 / 0.923 against
 * 0.956 / 1.000 / 1.000 / 0.928.
 */
// More than 8 s on an idle 2-core machine: `mvn verify` runs it, `mvn test` does not.
@Tag("slow")
class AccuracyAgainstMllibTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static final MulticlassClassificationEvaluator ACCURACY =
      new MulticlassClassificationEvaluator().setMetricName("accuracy");

  @ParameterizedTest(name = "{0}")
  @CsvSource({
      "breast_cancer, 30, true, 2",
      "spark_sample_libsvm, 692, true, 1",
      "iris, 4, false, 1",
      "skin_nonskin, 3, true, -1",
  })
  void defaultsAreWithinTheStatedMarginOfTheBetterMllibModel(String name, int d,
      boolean binary, int rowsMargin) {
    Dataset<Row> train = TestData.frame(SPARK,
        TestData.readLibSvm(TestData.sharedData(name, "train.libsvm"), d), 2).cache();
    Dataset<Row> test = TestData.frame(SPARK,
        TestData.readLibSvm(TestData.sharedData(name, "test.libsvm"), d), 2).cache();
    long testRows = test.count();

    double perceptron = ACCURACY.evaluate(new PerceptronClassifier().fit(train).transform(test));
    double best = ACCURACY.evaluate(new LogisticRegression().fit(train).transform(test));
    if (binary) {
      best = Math.max(best, ACCURACY.evaluate(new LinearSVC().fit(train).transform(test)));
    }
    double margin = rowsMargin >= 0 ? (rowsMargin + 0.5) / testRows : 0.01;
    assertTrue(perceptron >= best - margin, name + ": perceptron " + perceptron
        + " vs best MLlib " + best + " (margin " + margin + ")");
    train.unpersist();
    test.unpersist();
  }
}
