package io.github.sparkperceptron.bench;

import java.util.List;
import org.apache.spark.ml.Predictor;
import org.apache.spark.ml.classification.LinearSVC;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Issue 29's reference: MLlib's {@code LogisticRegression} and {@code LinearSVC} on a LIBSVM file
 * larger than the JVM's heap (the 20M-row file of {@code submit/generate}), reading included, as a
 * user would run them: {@code spark.read.format("libsvm")} with the number of features given (no
 * pass to find it), {@code maxIter} iterations, MLlib caching its instances itself
 * ({@code MEMORY_AND_DISK}, spilling what does not fit), then the accuracy on the test file. The
 * perceptron's side is {@code submit/train} on the same files (its metrics JSON says where the
 * time went); run each in its own JVM with the heap under test ({@code --driver-memory 2g}).
 */
final class LargeFileBench {
  private final SparkSession spark;
  private final Report report;

  LargeFileBench(SparkSession spark, Report report) {
    this.spark = spark;
    this.report = report;
  }

  void run(String train, String test, int numFeatures, int maxIter, List<String> methods,
      String load) {
    report.markdown(Report.f("## MLlib on a file beyond memory (issue 29)\n\n`%s` (test `%s`),"
        + " %s features given, maxIter=%d, heap %d MiB; the time is the fit's, reading the text"
        + " included (MLlib reads it once into its cached instances). %s\n\n", train, test,
        numFeatures, maxIter, Runtime.getRuntime().maxMemory() >> 20, load));
    Report.Table t = new Report.Table("method", "fit s (reading included)", "test accuracy");
    for (String method : methods) {
      Predictor<?, ?, ?> estimator = switch (method) {
        case "lr" -> new LogisticRegression().setMaxIter(maxIter);
        case "svc" -> new LinearSVC().setMaxIter(maxIter);
        default -> throw new IllegalArgumentException("--large-methods: lr or svc, got "
            + method);
      };
      long start = System.nanoTime();
      var model = estimator.fit(read(train, numFeatures));
      double seconds = (System.nanoTime() - start) / 1e9;
      double accuracy = new MulticlassClassificationEvaluator().setMetricName("accuracy")
          .evaluate(model.transform(read(test, numFeatures)));
      System.err.printf("large %s: %.1f s, test accuracy %.4f%n", method, seconds, accuracy);
      t.row(method.equals("lr") ? "MLlib LogisticRegression" : "MLlib LinearSVC",
          Report.f("%.1f", seconds), Report.f("%.4f", accuracy));
    }
    report.markdown(t.toString());
  }

  private Dataset<Row> read(String path, int numFeatures) {
    var reader = spark.read().format("libsvm");
    if (numFeatures > 0) {
      reader = reader.option("numFeatures", numFeatures);
    }
    return reader.load(path);
  }
}
