package io.github.sparkperceptron.bench;

import io.github.sparkperceptron.internal.blocks.PartitionJob;
import io.github.sparkperceptron.internal.io.LabeledData;
import io.github.sparkperceptron.internal.io.LibSvmSource;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Issue 31 (the suite's speed) and 32 (a small fit's fixed cost): what a small training pays
 * besides its arithmetic. Two parts:
 *
 * <ol>
 * <li>One Spark job over a cached RDD of 2 partitions, as Spark's Java API runs it
 *     ({@code map(f).collect()}, {@code mapPartitionsWithIndex(task).treeAggregate(...)}) and as
 *     {@link PartitionJob} runs it (one {@code runJob} with a function object the closure cleaner
 *     passes by), alternating; the median per job.</li>
 * <li>Fits of the small real data sets (under 50 held-out rows of a class, so the default
 *     calibration cross-fits 3 fold models), the default against {@code calibration=none} (the
 *     same weights bit for bit), alternating; the median per fit.</li>
 * </ol>
 */
final class SmallFitsBench {
  private final SparkSession spark;
  private final Report report;
  private final int repeats;
  private final Path dataDir;

  SmallFitsBench(SparkSession spark, Report report, int repeats, Path dataDir) {
    this.spark = spark;
    this.report = report;
    this.repeats = Math.max(1, repeats);
    this.dataDir = dataDir;
  }

  void run(String load) {
    report.markdown(Report.f("## Small fits: a Spark job's fixed cost, and the default's"
        + " calibration (issues 31, 32)\n\n%s\n\n", load));
    jobs();
    fits();
    report.markdown("After the section: " + SystemLoad.text() + "\n\n");
    report.flush();
  }

  private void jobs() {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    JavaRDD<Integer> rdd = jsc.parallelize(List.of(1, 2, 3, 4), 2).cache();
    rdd.count();
    // 8 partitions, as 8 workers' mixing rounds: Spark's tree builds a level at depth 2.
    JavaRDD<Integer> eight = jsc.parallelize(List.of(1, 2, 3, 4, 5, 6, 7, 8), 8).cache();
    eight.count();
    List<Double> treeLevel = new ArrayList<>();
    List<Double> oneStage = new ArrayList<>();
    int perTiming = 100;
    List<Double> mapCollect = new ArrayList<>();
    List<Double> partitionMap = new ArrayList<>();
    List<Double> treeAggregate = new ArrayList<>();
    List<Double> partitionAggregate = new ArrayList<>();
    for (int r = 0; r <= repeats; r++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < perTiming; i++) {
        rdd.map(x -> x + 1).collect();
      }
      long t1 = System.nanoTime();
      for (int i = 0; i < perTiming; i++) {
        PartitionJob.map(rdd, x -> x + 1);
      }
      long t2 = System.nanoTime();
      for (int i = 0; i < perTiming; i++) {
        rdd.mapPartitionsWithIndex((p, it) -> Collections.singletonList(p).iterator(), true)
            .treeAggregate(0, Integer::sum, Integer::sum, 2);
      }
      long t3 = System.nanoTime();
      for (int i = 0; i < perTiming; i++) {
        PartitionJob.aggregate(rdd.rdd(), (p, it) -> Collections.singletonList(p).iterator(), 0,
            Integer::sum, Integer::sum, 2);
      }
      long t4 = System.nanoTime();
      for (int i = 0; i < perTiming; i++) {
        eight.mapPartitionsWithIndex((p, it) -> Collections.singletonList(p).iterator(), true)
            .treeAggregate(0, Integer::sum, Integer::sum, 2);
      }
      long t5 = System.nanoTime();
      for (int i = 0; i < perTiming; i++) {
        PartitionJob.aggregate(eight.rdd(), (p, it) -> Collections.singletonList(p).iterator(),
            0, Integer::sum, Integer::sum, 1);
      }
      long t6 = System.nanoTime();
      if (r > 0) {
        // The first repetition warms the JIT up.
        mapCollect.add((t1 - t0) / 1e6 / perTiming);
        partitionMap.add((t2 - t1) / 1e6 / perTiming);
        treeAggregate.add((t3 - t2) / 1e6 / perTiming);
        partitionAggregate.add((t4 - t3) / 1e6 / perTiming);
        treeLevel.add((t5 - t4) / 1e6 / perTiming);
        oneStage.add((t6 - t5) / 1e6 / perTiming);
      }
    }
    rdd.unpersist();
    eight.unpersist();
    Report.Table t = new Report.Table("job over 2 cached partitions", "Spark's Java API ms",
        "PartitionJob ms", "ratio");
    double a = median(mapCollect);
    double b = median(partitionMap);
    t.row("map(f).collect()", Report.f("%.2f", a), Report.f("%.2f", b), Report.f("%.2f", b / a));
    double c = median(treeAggregate);
    double d = median(partitionAggregate);
    t.row("mapPartitionsWithIndex + treeAggregate (depth 2)", Report.f("%.2f", c),
        Report.f("%.2f", d), Report.f("%.2f", d / c));
    double e = median(treeLevel);
    double g = median(oneStage);
    t.row("8 partitions: treeAggregate (depth 2, one level) / PartitionJob.aggregate (depth 1,"
        + " one stage)", Report.f("%.2f", e), Report.f("%.2f", g), Report.f("%.2f", g / e));
    report.markdown(Report.f("%d jobs per timing, %d timings after a warm-up; medians per job."
        + "\n\n", perTiming, repeats)).markdown(t.toString());
    System.err.printf("small-fits jobs: map+collect %.2f ms vs %.2f; treeAggregate %.2f ms vs"
        + " %.2f; 8 partitions, a tree level %.2f ms vs one stage %.2f%n", a, b, c, d, e, g);
  }

  private void fits() {
    Report.Table t = new Report.Table("data set", "rows", "default (sigmoid, 3 folds) s",
        "calibration=none s", "default / none");
    for (String name : List.of("breast_cancer", "iris")) {
      LabeledData data = LibSvmSource.read(spark, dataDir.resolve(name).resolve("train.libsvm")
          .toString(), -1, "train");
      Dataset<Row> rows = data.frame().cache();
      long n = rows.count();
      PerceptronClassifier defaults = new PerceptronClassifier();
      PerceptronClassifier none = new PerceptronClassifier().setCalibration("none");
      int fits = 10;
      List<Double> a = new ArrayList<>();
      List<Double> b = new ArrayList<>();
      for (int r = 0; r <= repeats; r++) {
        long t0 = System.nanoTime();
        for (int i = 0; i < fits; i++) {
          defaults.fit(rows);
        }
        long t1 = System.nanoTime();
        for (int i = 0; i < fits; i++) {
          none.fit(rows);
        }
        long t2 = System.nanoTime();
        if (r > 0) {
          a.add((t1 - t0) / 1e9 / fits);
          b.add((t2 - t1) / 1e9 / fits);
        }
      }
      rows.unpersist();
      double da = median(a);
      double db = median(b);
      t.row(name, Long.toString(n), Report.f("%.3f", da), Report.f("%.3f", db),
          Report.f("%.2f", da / db));
      System.err.printf("small-fits %s: default %.3f s, none %.3f s (%.2f)%n", name, da, db,
          da / db);
    }
    report.markdown(Report.f("Fits with the estimator's defaults (`local` master's workers) and"
        + " with `calibration=none`, 10 of each per timing, %d timings after a warm-up; medians"
        + " per fit.\n\n", repeats)).markdown(t.toString());
    eightWorkers();
  }

  /**
   * More workers than task slots (8 on local[2]): no barrier stage, a Spark job per mixing round,
   * whose 8 results Spark's treeAggregate would combine through a level at depth 2.
   */
  private void eightWorkers() {
    LabeledData data = LibSvmSource.read(spark, dataDir.resolve("pendigits")
        .resolve("train.libsvm").toString(), -1, "train");
    Dataset<Row> rows = data.frame().cache();
    long n = rows.count();
    PerceptronClassifier eight = new PerceptronClassifier().setNumWorkers(8).setMaxIter(5)
        .setCalibration("none");
    int fits = 4;
    List<Double> times = new ArrayList<>();
    for (int r = 0; r <= repeats; r++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < fits; i++) {
        eight.fit(rows);
      }
      if (r > 0) {
        times.add((System.nanoTime() - t0) / 1e9 / fits);
      }
    }
    rows.unpersist();
    double m = median(times);
    report.markdown(Report.f("pendigits (%,d rows), `numWorkers=8` on the `local` master's"
        + " slots (a Spark job per mixing round), 5 epochs, `calibration=none`: %.3f s per fit"
        + " (%d fits per timing, %d timings after a warm-up; median).\n\n", n, m, fits,
        repeats));
    System.err.printf("small-fits pendigits on 8 workers: %.3f s per fit%n", m);
  }

  private static double median(List<Double> values) {
    return PlainLoop.median(values.stream().mapToDouble(Double::doubleValue).toArray());
  }
}
