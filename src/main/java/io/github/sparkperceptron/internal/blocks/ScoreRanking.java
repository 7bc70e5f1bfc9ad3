package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.evaluation.CurveAreas;
import io.github.sparkperceptron.internal.evaluation.RankedScores;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

/**
 * The areas under a binary classifier's ROC and precision-recall curves from one ranking of the
 * scores of every partition ({@link CurveAreas}: the values of Spark's
 * {@code BinaryClassificationMetrics} with 1000 bins, on one partition).
 *
 * <p>Each partition ranks its own rows in the pass that scores them and sends the driver a
 * {@link Head}. Small rankings travel whole and are merged on the driver: the areas then cost no
 * Spark job beyond that pass. Larger ones (above {@value #DRIVER_LIMIT} distinct scores in all)
 * stay on the executors: the partitions' rankings are made again, cut into R score ranges of
 * about equal size (from the heads' samples), each range merged by one task after a shuffle of
 * the cut rankings (primitive arrays, 24 bytes per score), and the areas computed per range from
 * the ranks and weights above it and joined on the driver: three jobs, the driver holding O(R).
 * (Spark's class sorts (score, counter) objects, and counts, scans and sums in jobs of their own.)
 */
public final class ScoreRanking {
  /** At most this many distinct scores in all are merged on the driver (24 bytes each). */
  static final int DRIVER_LIMIT = 1 << 21;
  /** Scores each partition samples for the ranges' cut points. */
  private static final int SAMPLE = 256;

  private ScoreRanking() {
  }

  /**
   * What a partition's pass sends the driver about its ranking: the ranking itself when it is
   * small enough for all of them to be merged on the driver, else its size and a sample.
   */
  public static final class Head implements Serializable {
    private static final long serialVersionUID = 1L;
    /** The ranking, or {@code null} when it stays on the executor. */
    final RankedScores run;
    final int size;
    final double[] sample;

    private Head(RankedScores run, int size, double[] sample) {
      this.run = run;
      this.size = size;
      this.sample = sample;
    }

    /**
     * The head of {@code run}, one of {@code partitions} rankings (a worker's chunk's: a chunk
     * of rows is ranked at a time, in bounded memory): whole when it takes at most its share of
     * {@link #DRIVER_LIMIT}.
     */
    public static Head of(RankedScores run, int partitions) {
      return of(run, partitions, DRIVER_LIMIT);
    }

    static Head of(RankedScores run, int partitions, int driverLimit) {
      boolean whole = run.size() <= driverLimit / Math.max(1, partitions);
      return new Head(whole ? run : null, run.size(), run.sample(SAMPLE));
    }
  }

  /** Whether every ranking travelled whole: {@link #areas} then runs no Spark job. */
  public static boolean complete(List<Head> heads) {
    for (Head h : heads) {
      if (h.run == null) {
        return false;
      }
    }
    return true;
  }

  /**
   * {areaUnderROC, areaUnderPR}; NaN for no rows.
   *
   * @param heads the rankings' heads, in order (a worker's chunks one after the other, the
   *     workers in order)
   * @param rankings the same rankings again, in the same order (any number per partition):
   *     computed only when some ranking did not travel whole
   */
  public static double[] areas(List<Head> heads, Supplier<JavaRDD<RankedScores>> rankings) {
    List<RankedScores> runs = new ArrayList<>();
    long total = 0;
    for (Head h : heads) {
      runs.add(h.run);
      total += h.size;
    }
    if (!runs.contains(null)) {
      return CurveAreas.of(RankedScores.merge(runs), CurveAreas.DEFAULT_BINS);
    }
    int ranges = (int) Math.min(Math.max(2, (total + DRIVER_LIMIT - 1) / DRIVER_LIMIT * 4),
        Math.max(2, heads.size() * 4L));
    return areasByRange(rankings.get(), cuts(heads, ranges));
  }

  /**
   * Up to {@code ranges} − 1 decreasing, distinct cut scores that split the heads' samples
   * (each standing for size / samples scores of its partition) into parts of about equal weight.
   */
  static double[] cuts(List<Head> heads, int ranges) {
    List<double[]> weighted = new ArrayList<>();
    double total = 0;
    for (Head h : heads) {
      double each = h.sample.length == 0 ? 0 : (double) h.size / h.sample.length;
      for (double s : h.sample) {
        weighted.add(new double[] {s, each});
        total += each;
      }
    }
    weighted.sort((a, b) -> Double.compare(b[0], a[0]));
    double[] cuts = new double[ranges - 1];
    int n = 0;
    double seen = 0;
    for (double[] w : weighted) {
      seen += w[1];
      if (n < cuts.length && seen >= total * (n + 1) / ranges
          && (n == 0 || Double.compare(w[0], cuts[n - 1]) < 0)) {
        cuts[n++] = w[0];
      }
    }
    return Arrays.copyOf(cuts, n);
  }

  /**
   * The areas of the rankings cut at {@code cuts} (decreasing): range 0 holds the scores above
   * cuts[0], range r those in (cuts[r], cuts[r − 1]], the last those at or below the last cut.
   */
  static double[] areasByRange(JavaRDD<RankedScores> rankings, double[] cuts) {
    int ranges = cuts.length + 1;
    JavaRDD<RankedScores> merged = JavaPairRDD.fromJavaRDD(rankings.mapPartitionsWithIndex(
        (p, it) -> slices(p, it, cuts), false))
        .partitionBy(new HashPartitioner(ranges))
        .values()
        .mapPartitions(it -> {
          // The shuffle delivers the slices in the order its fetches complete: the rankings'
          // order is restored, so that equal scores' weights are summed alike in every run.
          List<Tuple2<Long, RankedScores>> slices = new ArrayList<>();
          it.forEachRemaining(slices::add);
          slices.sort(Comparator.comparing(Tuple2::_1));
          List<RankedScores> runs = new ArrayList<>();
          for (Tuple2<Long, RankedScores> s : slices) {
            runs.add(s._2());
          }
          return Collections.singletonList(RankedScores.merge(runs)).iterator();
        })
        .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      List<double[]> sizes = merged.map(r -> new double[] {r.size(), r.totalPositives(),
          r.totalNegatives()}).collect();
      List<CurveAreas.Position> starts = new ArrayList<>();
      long distinct = 0;
      double positives = 0.0;
      double negatives = 0.0;
      for (double[] s : sizes) {
        starts.add(new CurveAreas.Position(distinct, positives, negatives));
        distinct += (long) s[0];
        positives += s[1];
        negatives += s[2];
      }
      CurveAreas.Totals totals = new CurveAreas.Totals(distinct,
          CurveAreas.grouping(distinct, CurveAreas.DEFAULT_BINS), positives, negatives);
      List<CurveAreas.Partial> parts = merged.mapPartitionsWithIndex((r, it) ->
          Collections.singletonList(CurveAreas.partial(it.next(), starts.get(r), totals))
              .iterator(), false).collect();
      return CurveAreas.stitch(parts);
    } finally {
      merged.unpersist(false);
    }
  }

  /**
   * Partition {@code p}'s rankings, each cut into one slice per range, keyed by range and by
   * (partition, ranking): their order. Lazily: one ranking is held at a time, its slices handed
   * to the shuffle before the next is made.
   */
  private static Iterator<Tuple2<Integer, Tuple2<Long, RankedScores>>> slices(
      int p, Iterator<RankedScores> runs, double[] cuts) {
    return new Iterator<>() {
      private long i;
      private RankedScores run;
      private int range;
      private int from;

      @Override
      public boolean hasNext() {
        return run != null || runs.hasNext();
      }

      @Override
      public Tuple2<Integer, Tuple2<Long, RankedScores>> next() {
        if (run == null) {
          run = runs.next();
          range = 0;
          from = 0;
          i++;
        }
        int r = range++;
        int to = r == cuts.length ? run.size() : run.countAbove(cuts[r]);
        Tuple2<Integer, Tuple2<Long, RankedScores>> slice = new Tuple2<>(r,
            new Tuple2<>(((long) p << 32) | (i - 1), run.slice(from, to)));
        from = to;
        if (range > cuts.length) {
          run = null;
        }
        return slice;
      }
    };
  }
}
