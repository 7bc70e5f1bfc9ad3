package io.github.sparkperceptron.bench;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.spark.ml.classification.ClassificationModel;
import org.apache.spark.ml.classification.LinearSVCModel;
import org.apache.spark.ml.classification.LogisticRegressionModel;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerBlockUpdated;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.StorageLevel;

/**
 * Scoring (issue 21): {@code transform} of cached rows by our model against MLlib's model of the
 * same shape and the same weights ({@code LogisticRegressionModel}, multinomial, for K &gt; 2;
 * {@code LinearSVCModel} for binary), each with its default output columns, forced by summing the
 * prediction column. Rows: {@code TextLikeData} d = 2^16, 30 non-zeros, topics of 200, share 0.3,
 * seed 43. Our model: PerceptronClassifier defaults, 2 epochs on 20,000 other rows of the same
 * distribution; MLlib's is built from our coefficient matrix and intercepts (the models'
 * package-private constructors: scoring cost depends on the shape, not on how the weights were
 * found, and equal weights let the predictions be compared).
 *
 * <p>Reported: wall time of transform + action (median), rows/s, the task binary (the largest
 * broadcast Spark stored while the scoring job ran: DAGScheduler broadcasts each stage's
 * serialised RDD and function; lz4-compressed pieces, what every executor fetches) and the
 * scorer ours broadcasts in {@code transform}; the share of rows both models predict alike.
 */
final class ScoringBench {
  private final SparkSession spark;
  private final Report report;
  private final String master;
  private final int partitions;
  private final int repeats;
  private final Pieces pieces = new Pieces();

  ScoringBench(SparkSession spark, Report report, String master, int partitions, int repeats) {
    this.spark = spark;
    this.report = report;
    this.master = master;
    this.partitions = partitions;
    this.repeats = repeats;
    spark.sparkContext().addSparkListener(pieces);
  }

  /** Bytes of the broadcast pieces stored, by broadcast. */
  private static final class Pieces extends SparkListener {
    private final Map<String, Long> bytes = new HashMap<>();

    @Override
    public synchronized void onBlockUpdated(SparkListenerBlockUpdated event) {
      BlockId id = event.blockUpdatedInfo().blockId();
      long size = event.blockUpdatedInfo().memSize() + event.blockUpdatedInfo().diskSize();
      if (id.isBroadcast() && id.name().contains("_piece") && size > 0) {
        bytes.merge(id.name().substring(0, id.name().indexOf("_piece")), size, Long::sum);
      }
    }

    synchronized long largest() {
      return bytes.values().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    synchronized void clear() {
      bytes.clear();
    }
  }

  private void quiet() {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } catch (TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not drain", e);
    }
  }

  void run(long rows, int[] classes, long trainRows) {
    report.markdown(Report.f("## Scoring: transform of %,d cached rows (issue 21)\n\n"
        + "`%s`, %d partitions. Rows: TextLikeData d=2^16, 30 non-zeros (Zipf s=1), topics of"
        + " 200, share 0.3, seed 43. Ours: PerceptronClassifier defaults, maxIter=2, on %,d"
        + " other rows; MLlib: the same coefficients and intercepts in a %s. Each: default"
        + " output columns, the prediction column summed; median of %d. Task binary: the"
        + " largest broadcast stored while the job ran (lz4 pieces: what each executor"
        + " fetches per stage); scorer: what our transform broadcasts once. %s\n\n", rows,
        master, partitions, trainRows, "LogisticRegressionModel (multinomial; LinearSVCModel"
        + " for K = 2)", repeats, SystemLoad.text()));
    Report.Table t = new Report.Table("K", "model", "median s", "rows/s", "task binary B",
        "scorer broadcast B", "same predictions");
    for (int k : classes) {
      TextLikeData data = new TextLikeData(1 << 16, k, 30, 1.0, 200, 0.3, 43);
      Dataset<Row> scored = data.frame(spark, 0, rows, partitions)
          .persist(StorageLevel.MEMORY_ONLY());
      scored.count();
      Dataset<Row> train = data.frame(spark, rows, trainRows, partitions).cache();
      PerceptronClassificationModel ours = new PerceptronClassifier().setMaxIter(2).setTol(0)
          .fit(train);
      train.unpersist();
      ClassificationModel<Vector, ?> theirs = k == 2
          ? new LinearSVCModel("svc", ours.coefficients(), ours.intercept())
          : new LogisticRegressionModel("lr", ours.coefficientMatrix(), ours.interceptVector(),
              k, true);
      DataShape shape = new DataShape("text-like K=" + k, rows, 1 << 16, 30L * rows, k, 43L,
          false);
      double agreement = agreement(ours, theirs, scored);
      for (ClassificationModel<Vector, ?> model : List.<ClassificationModel<Vector, ?>>of(ours,
          theirs)) {
        String name = model == ours ? "PerceptronClassificationModel"
            : model.getClass().getSimpleName();
        double[] seconds = new double[repeats];
        long taskBinary = 0;
        long scorer = 0;
        for (int r = 0; r < repeats; r++) {
          quiet();
          pieces.clear();
          long start = System.nanoTime();
          Dataset<Row> out = model.transform(scored);
          quiet();
          scorer = Math.max(scorer, pieces.largest());
          pieces.clear();
          out.agg(functions.sum(model.getPredictionCol())).collect();
          seconds[r] = (System.nanoTime() - start) / 1e9;
          quiet();
          taskBinary = Math.max(taskBinary, pieces.largest());
          System.err.printf(Locale.ROOT, "scoring K=%d %s %d: %.2f s, task binary %,d B,"
              + " scorer %,d B%n", k, name, r + 1, seconds[r], taskBinary, scorer);
        }
        double median = PlainLoop.median(seconds);
        t.row(k, name, Report.f("%.2f", median), Report.f("%,.0f", rows / median),
            Report.f("%,d", taskBinary), model == ours ? Report.f("%,d", scorer) : "",
            Report.f("%.4f", agreement));
        report.add("scoring", shape, partitions, name, "scoring_seconds", median, "s");
        report.add("scoring", shape, partitions, name, "rows_per_second", rows / median,
            "rows/s");
        report.add("scoring", shape, partitions, name, "task_binary_bytes", taskBinary, "B");
      }
      scored.unpersist();
    }
    report.markdown(t.toString()).markdown(Report.f("Target: our rows/s ≥ MLlib's, task binary"
        + " < 1 MB. After the section: %s\n\n", SystemLoad.text()));
    report.flush();
  }

  /** The share of the first 10,000 rows both models predict alike (equal weights: ~1). */
  private static double agreement(PerceptronClassificationModel ours,
      ClassificationModel<Vector, ?> theirs, Dataset<Row> rows) {
    List<Row> sample = rows.limit(10_000).collectAsList();
    int same = 0;
    for (Row r : sample) {
      Vector x = r.getAs("features");
      if (ours.predict(x) == theirs.predict(x)) {
        same++;
      }
    }
    return sample.isEmpty() ? Double.NaN : same / (double) sample.size();
  }
}
