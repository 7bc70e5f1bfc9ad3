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
    report.markdown("After the section: " + BenchmarkRunner.loadText() + "\n\n");
    report.flush();
  }

  private void jobs() {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    JavaRDD<Integer> rdd = jsc.parallelize(List.of(1, 2, 3, 4), 2).cache();
    rdd.count();
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
      if (r > 0) {
        // The first repetition warms the JIT up.
        mapCollect.add((t1 - t0) / 1e6 / perTiming);
        partitionMap.add((t2 - t1) / 1e6 / perTiming);
        treeAggregate.add((t3 - t2) / 1e6 / perTiming);
        partitionAggregate.add((t4 - t3) / 1e6 / perTiming);
      }
    }
    rdd.unpersist();
    Report.Table t = new Report.Table("job over 2 cached partitions", "Spark's Java API ms",
        "PartitionJob ms", "ratio");
    double a = median(mapCollect);
    double b = median(partitionMap);
    t.row("map(f).collect()", Report.f("%.2f", a), Report.f("%.2f", b), Report.f("%.2f", b / a));
    double c = median(treeAggregate);
    double d = median(partitionAggregate);
    t.row("mapPartitionsWithIndex + treeAggregate (depth 2)", Report.f("%.2f", c),
        Report.f("%.2f", d), Report.f("%.2f", d / c));
    report.markdown(Report.f("%d jobs per timing, %d timings after a warm-up; medians per job."
        + "\n\n", perTiming, repeats)).markdown(t.toString());
    System.err.printf("small-fits jobs: map+collect %.2f ms vs %.2f; treeAggregate %.2f ms vs"
        + " %.2f%n", a, b, c, d);
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
  }

  private static double median(List<Double> values) {
    return PlainLoop.median(values.stream().mapToDouble(Double::doubleValue).toArray());
  }
}
