package io.github.sparkperceptron.internal.blocks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.evaluation.CurveAreas;
import io.github.sparkperceptron.internal.evaluation.RankedScores;
import io.github.sparkperceptron.testing.SparkTestSupport;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.mllib.evaluation.BinaryClassificationMetrics;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.Tuple3;

/**
 * The curve areas of {@link ScoreRanking} against Spark's {@code BinaryClassificationMetrics}:
 * below 2000 distinct scores (no bins: every score is a point) equal to 1e-12 with 1000 bins, as
 * {@code BinaryClassificationEvaluator} asks (the sums differ only in the order of their
 * additions); above, equal to 1e-12 without bins (the exact curves); with 1000 bins equal to a
 * naive one-partition simulation of Spark's binning (the sorted rows in groups of ⌊n/1000⌋
 * distinct scores), and within 1e-4 of Spark's own, which groups its bins within each partition
 * of its sort and so depends on where the sort cut them. The range merge (rankings too
 * large for the driver) gives what the driver's merge gives.
 */
class ScoreRankingTest {
  private static JavaSparkContext jsc;

  @BeforeAll
  static void session() {
    jsc = JavaSparkContext.fromSparkContext(SparkTestSupport.spark().sparkContext());
  }

  /** (score, label, weight) rows: scores rounded to {@code step}, so that they repeat. */
  private static List<double[]> rows(long seed, int n, double step, boolean weighted) {
    Random rnd = new Random(seed);
    List<double[]> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double score = Math.round(rnd.nextGaussian() / step) * step;
      double label = rnd.nextDouble() < 1 / (1 + Math.exp(-2 * score)) ? 1.0 : 0.0;
      out.add(new double[] {score, label, weighted ? 0.25 + rnd.nextInt(8) * 0.5 : 1.0});
    }
    return out;
  }

  private static JavaRDD<RankedScores> rankings(List<double[]> rows, int partitions) {
    return rankings(rows, partitions, Integer.MAX_VALUE);
  }

  /**
   * One ranking of every {@code perRun} rows of each partition, in order: a worker's chunks are
   * ranked one at a time.
   */
  private static JavaRDD<RankedScores> rankings(List<double[]> rows, int partitions,
      int perRun) {
    return jsc.parallelize(rows, partitions).mapPartitions(it -> {
      List<RankedScores> runs = new ArrayList<>();
      RankedScores.Builder b = new RankedScores.Builder();
      int n = 0;
      while (it.hasNext()) {
        double[] r = it.next();
        b.add(r[0], r[1] == 1.0, r[2]);
        if (++n == perRun) {
          runs.add(b.build());
          b = new RankedScores.Builder();
          n = 0;
        }
      }
      if (n > 0 || runs.isEmpty()) {
        runs.add(b.build());
      }
      return runs.iterator();
    });
  }

  private static double[] mllib(List<double[]> rows, int bins) {
    JavaRDD<Tuple3<Object, Object, Object>> scored = jsc.parallelize(rows, 3)
        .map(r -> new Tuple3<>(r[0], r[1], r[2]));
    BinaryClassificationMetrics metrics = new BinaryClassificationMetrics(scored.rdd(), bins);
    try {
      return new double[] {metrics.areaUnderROC(), metrics.areaUnderPR()};
    } finally {
      metrics.unpersist();
    }
  }

  @Test
  void theAreasAreSparksOnOnePartitionAndTheRangeMergeAgrees() {
    for (double step : new double[] {0.01, 1e-6}) {
      for (boolean weighted : new boolean[] {false, true}) {
        List<double[]> rows = rows(7, 8_000, step, weighted);
        String what = (step == 0.01 ? "~700 distinct scores" : "~8,000 distinct scores (binned)")
            + (weighted ? ", weighted" : "");
        boolean binned = step < 0.01;
        double[] expected = binned ? naiveBinned(rows, 1000) : mllib(rows, 1000);
        JavaRDD<RankedScores> rankings = rankings(rows, 4);
        List<ScoreRanking.Head> heads = new ArrayList<>();
        List<ScoreRanking.Head> small = new ArrayList<>();
        for (RankedScores r : rankings.collect()) {
          heads.add(ScoreRanking.Head.of(r, 4));
          small.add(ScoreRanking.Head.of(r, 4, 400)); // too large for the driver: ranges
        }
        assertTrue(ScoreRanking.complete(heads) && !ScoreRanking.complete(small), what);
        double[] driver = ScoreRanking.areas(heads, () -> {
          throw new AssertionError("the driver merges whole rankings without a job");
        });
        double[] ranges = ScoreRanking.areas(small, () -> rankings);
        // Several rankings per partition (a worker's chunks), merged by ranges in their order.
        JavaRDD<RankedScores> chunked = rankings(rows, 4, 300);
        List<ScoreRanking.Head> chunkHeads = new ArrayList<>();
        for (RankedScores r : chunked.collect()) {
          chunkHeads.add(ScoreRanking.Head.of(r, 28, 400));
        }
        assertTrue(chunkHeads.size() > 20 && !ScoreRanking.complete(chunkHeads), what);
        double[] chunkRanges = ScoreRanking.areas(chunkHeads, () -> chunked);
        double[] exact = CurveAreas.of(RankedScores.merge(rankings.collect()), 0);
        double[] sparkExact = mllib(rows, 0);
        double[] sparkBinned = mllib(rows, 1000);
        for (int k = 0; k < 2; k++) {
          String area = k == 0 ? "areaUnderROC" : "areaUnderPR";
          assertEquals(expected[k], driver[k], 1e-12 * expected[k], what + ": " + area);
          assertEquals(driver[k], ranges[k], 1e-12 * driver[k], what + ", ranges: " + area);
          assertEquals(driver[k], chunkRanges[k], 1e-12 * driver[k],
              what + ", ranges of many rankings per partition: " + area);
          assertEquals(sparkExact[k], exact[k], 1e-12 * exact[k], what + ", no bins: " + area);
          // Spark groups its bins within each partition of its sort (spark.default.parallelism
          // of them), whose cuts come from a sample that RangePartitioner seeds with the RDD's
          // id: how many RDDs the shared session made before moves them. Seen: up to 1.08e-5.
          assertEquals(sparkBinned[k], driver[k], binned ? 1e-4 : 1e-12 * driver[k],
              what + ", Spark's bins: " + area);
        }
      }
    }
  }

  /**
   * Spark's binned areas as its algorithm computes them on one partition, with objects and no
   * cleverness: distinct scores in decreasing order with their weights, groups of ⌊n/bins⌋ of
   * them, one point per group at its cumulative weights, trapezoids.
   */
  private static double[] naiveBinned(List<double[]> rows, int bins) {
    TreeMap<Double, double[]> byScore = new TreeMap<>(
        Comparator.reverseOrder());
    for (double[] r : rows) {
      double[] c = byScore.computeIfAbsent(r[0], s -> new double[2]);
      c[r[1] > 0.5 ? 0 : 1] += r[2];
    }
    long grouping = Math.max(1, byScore.size() / bins);
    grouping = grouping < 2 ? 1 : grouping;
    List<double[]> groups = new ArrayList<>();
    double[] open = new double[2];
    int count = 0;
    for (double[] c : byScore.values()) {
      open[0] += c[0];
      open[1] += c[1];
      if (++count == grouping) {
        groups.add(open);
        open = new double[2];
        count = 0;
      }
    }
    if (count > 0) {
      groups.add(open);
    }
    double p = 0;
    double n = 0;
    for (double[] g : groups) {
      p += g[0];
      n += g[1];
    }
    List<double[]> roc = new ArrayList<>(List.of(new double[] {0, 0}));
    List<double[]> pr = new ArrayList<>();
    double tp = 0;
    double fp = 0;
    for (double[] g : groups) {
      tp += g[0];
      fp += g[1];
      roc.add(new double[] {fp / n, tp / p});
      pr.add(new double[] {tp / p, tp + fp == 0 ? 1 : tp / (tp + fp)});
    }
    roc.add(new double[] {1, 1});
    pr.add(0, new double[] {0, pr.get(0)[1]});
    return new double[] {trapezoids(roc), trapezoids(pr)};
  }

  private static double trapezoids(List<double[]> points) {
    double area = 0;
    for (int i = 1; i < points.size(); i++) {
      area += (points.get(i)[0] - points.get(i - 1)[0])
          * (points.get(i)[1] + points.get(i - 1)[1]) / 2;
    }
    return area;
  }

  @Test
  void cutsSplitTheSampledScoresEvenlyAndDecrease() {
    List<double[]> rows = rows(9, 10_000, 1e-6, false);
    List<ScoreRanking.Head> heads = new ArrayList<>();
    for (RankedScores r : rankings(rows, 3).collect()) {
      heads.add(ScoreRanking.Head.of(r, 3, 10));
    }
    double[] cuts = ScoreRanking.cuts(heads, 5);
    assertEquals(4, cuts.length);
    for (int i = 1; i < cuts.length; i++) {
      assertTrue(cuts[i] < cuts[i - 1], "decreasing: " + Arrays.toString(cuts));
    }
    // Standard normal scores: the cuts sit near its 20, 40, 60 and 80 % quantiles (from above).
    double[] quantiles = {0.8416, 0.2533, -0.2533, -0.8416};
    for (int i = 0; i < cuts.length; i++) {
      assertEquals(quantiles[i], cuts[i], 0.1, "cut " + i);
    }
  }
}
