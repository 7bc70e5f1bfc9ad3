package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Not a test: measures, side by side in one session, what numWorkers does to accuracy and fit
 * time on pendigits (data-samples/pendigits), for the report. Each line: the input's
 * partitions, numWorkers, median and fastest fit seconds over the repetitions (the cases take
 * turns, after one untimed warm-up fit each), test accuracy. Run after {@code mvn -B -q test-compile}:
 *
 * <pre>
 * java $(the surefire JVM flags) \
 *     -cp target/test-classes:target/classes:$(cat target/classpath.txt) \
 *     io.github.sparkperceptron.ml.WorkerLayoutMeasurement [repetitions]
 * </pre>
 */
public final class WorkerLayoutMeasurement {
  private WorkerLayoutMeasurement() {
  }

  public static void main(String[] args) {
    int repetitions = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    SparkSession spark = SparkTestSupport.spark();
    List<TestData.Example> train = TestData.readLibSvm(
        TestData.projectRoot().resolve("data-samples/pendigits/train.libsvm"), 16);
    List<TestData.Example> test = TestData.readLibSvm(
        TestData.projectRoot().resolve("data-samples/pendigits/test.libsvm"), 16);
    Dataset<Row> testFrame = TestData.frameInOrder(spark, test, 2).cache();
    testFrame.count();
    System.out.printf(Locale.ROOT, "master %s, defaultParallelism %d, %d repetitions%n",
        spark.sparkContext().master(), spark.sparkContext().defaultParallelism(), repetitions);
    // {input partitions, numWorkers}: the case (200 partitions, auto) against the same
    // rows in 2 partitions, the old behaviour (one perceptron per partition), and the cost of
    // splitting (2 partitions for 8 workers against 8 partitions as they are).
    int[][] cases = {{200, 0}, {2, 0}, {200, 200}, {2, 8}, {8, 8}};
    List<Dataset<Row>> inputs = new ArrayList<>();
    double[][] seconds = new double[cases.length][repetitions];
    PerceptronClassificationModel[] models = new PerceptronClassificationModel[cases.length];
    for (int[] c : cases) {
      Dataset<Row> input = TestData.frameInOrder(spark, train, c[0]).cache();
      input.count();
      inputs.add(input);
      new PerceptronClassifier().setNumWorkers(c[1]).fit(input);
    }
    // Round after round, every case once per round: the machine's load drifts, and then it
    // drifts for all cases alike.
    for (int r = 0; r < repetitions; r++) {
      for (int i = 0; i < cases.length; i++) {
        long start = System.nanoTime();
        models[i] = new PerceptronClassifier().setNumWorkers(cases[i][1]).fit(inputs.get(i));
        seconds[i][r] = (System.nanoTime() - start) / 1e9;
      }
    }
    System.out.println("| input partitions | numWorkers | workers trained | median fit s |"
        + " min fit s | test accuracy |");
    System.out.println("|---|---|---|---|---|---|");
    for (int i = 0; i < cases.length; i++) {
      Arrays.sort(seconds[i]);
      double accuracy = new MulticlassClassificationEvaluator().setMetricName("accuracy")
          .evaluate(models[i].transform(testFrame));
      System.out.printf(Locale.ROOT, "| %d | %d | %d | %.3f | %.3f | %.4f |%n", cases[i][0],
          cases[i][1], models[i].summary().numWorkers(), seconds[i][repetitions / 2],
          seconds[i][0], accuracy);
    }
    spark.stop();
  }
}
