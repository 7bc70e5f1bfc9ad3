package io.github.sparkperceptron.internal.evaluation;

import java.io.Serializable;
import java.util.List;

/**
 * The areas under the ROC and precision-recall curves of a binary classifier's ranked scores,
 * defined as Spark's {@code BinaryClassificationMetrics} defines them with {@code numBins} bins
 * ({@code BinaryClassificationEvaluator} asks for 1000), computed from one ranking.
 *
 * <pre>
 * points   the distinct scores in decreasing order, in groups of g = ⌊n / numBins⌋ consecutive
 *          ones (every score its own group when g &lt; 2), the last group possibly smaller; one
 *          point per group, from the cumulative weights TP, FP of the rows scored at or above
 *          the group's last (lowest) score
 * ROC      (0, 0), then (FPR, TPR) = (FP / N, TP / P) per point (0 for N = 0 or P = 0), then (1, 1)
 * PR       (0, p₁), then (recall, precision) = (TP / P, TP / (TP + FP)) per point (precision 1
 *          when TP + FP = 0), p₁ the first point's precision
 * area     Σ of the trapezoids (x₂ − x₁)·(y₂ + y₁)/2 between consecutive points
 * </pre>
 * P and N are the summed weights of the positive and negative rows. Spark cuts the groups within
 * each partition of its sorted scores, so its points (and areas, slightly) depend on how it
 * partitioned them; here the groups run over the whole ranking, which is Spark's result on one
 * partition ({@code CurveAreasTest} compares both).
 *
 * <p>A ranking too large for one place is cut into score ranges: {@link #partial} computes each
 * range's points from the ranks and weights above it, and {@link #stitch} joins the ranges.
 */
public final class CurveAreas {
  /** {@code BinaryClassificationEvaluator}'s default: about 1000 points per curve. */
  public static final int DEFAULT_BINS = 1000;

  private CurveAreas() {
  }

  /** Distinct scores per curve point for {@code distinct} scores: ⌊n/bins⌋, or 1 when below 2. */
  public static long grouping(long distinct, int numBins) {
    long g = numBins == 0 ? 1 : distinct / numBins;
    return g < 2 ? 1 : g;
  }

  /** {areaUnderROC, areaUnderPR} of a whole ranking; NaN for one without scores. */
  public static double[] of(RankedScores all, int numBins) {
    Partial whole = partial(all, new Position(0, 0.0, 0.0), new Totals(all.size(),
        grouping(all.size(), numBins), all.totalPositives(), all.totalNegatives()));
    return stitch(List.of(whole));
  }

  /**
   * Where a range starts in the whole ranking: the distinct scores above it and the weights of
   * their rows.
   */
  public record Position(long rank, double positivesAbove, double negativesAbove)
      implements Serializable {
  }

  /**
   * What every range needs to know of the whole ranking.
   *
   * @param distinct the distinct scores of the whole ranking
   * @param grouping the distinct scores per point ({@link #grouping})
   */
  public record Totals(long distinct, long grouping, double positives, double negatives)
      implements Serializable {
  }

  /**
   * One score range's part of both curves: its first and last points and the areas between its
   * own points ({@code points == 0}: the range holds no point).
   */
  public record Partial(int points, double firstX, double firstY, double firstPrecision,
      double lastX, double lastY, double lastPrecision, double rocArea, double prArea)
      implements Serializable {
  }

  /** The points and areas of {@code range}, which starts at {@code at} in a ranking of {@code totals}. */
  public static Partial partial(RankedScores range, Position at, Totals totals) {
    double tp = at.positivesAbove();
    double fp = at.negativesAbove();
    long rank = at.rank();
    int points = 0;
    double firstX = 0.0;
    double firstY = 0.0;
    double firstPrecision = 0.0;
    double x = 0.0;
    double y = 0.0;
    double precision = 0.0;
    double roc = 0.0;
    double pr = 0.0;
    for (int i = 0; i < range.size(); i++) {
      tp += range.positives(i);
      fp += range.negatives(i);
      rank++;
      if (rank % totals.grouping() != 0 && rank != totals.distinct()) {
        continue;
      }
      double nx = totals.negatives() == 0.0 ? 0.0 : fp / totals.negatives();
      double ny = totals.positives() == 0.0 ? 0.0 : tp / totals.positives();
      double np = tp + fp == 0.0 ? 1.0 : tp / (tp + fp);
      if (points == 0) {
        firstX = nx;
        firstY = ny;
        firstPrecision = np;
      } else {
        roc += trapezoid(x, y, nx, ny);
        pr += trapezoid(y, precision, ny, np);
      }
      x = nx;
      y = ny;
      precision = np;
      points++;
    }
    return new Partial(points, firstX, firstY, firstPrecision, x, y, precision, roc, pr);
  }

  /** {areaUnderROC, areaUnderPR} from the ranges' parts in decreasing score order. */
  public static double[] stitch(List<Partial> parts) {
    double roc = 0.0;
    double pr = 0.0;
    boolean started = false;
    double x = 0.0;
    double y = 0.0;
    double precision = 0.0;
    for (Partial part : parts) {
      if (part.points() == 0) {
        continue;
      }
      if (!started) {
        // ROC starts at (0, 0); PR at (0, the first point's precision).
        precision = part.firstPrecision();
        started = true;
      }
      roc += trapezoid(x, y, part.firstX(), part.firstY()) + part.rocArea();
      pr += trapezoid(y, precision, part.firstY(), part.firstPrecision()) + part.prArea();
      x = part.lastX();
      y = part.lastY();
      precision = part.lastPrecision();
    }
    if (!started) {
      return new double[] {Double.NaN, Double.NaN};
    }
    roc += trapezoid(x, y, 1.0, 1.0);
    return new double[] {roc, pr};
  }

  /** The trapezoid under the segment from (x1, y1) to (x2, y2), as Spark's AreaUnderCurve. */
  private static double trapezoid(double x1, double y1, double x2, double y2) {
    return (x2 - x1) * (y2 + y1) / 2.0;
  }
}
