package io.github.sparkperceptron.internal.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The ranking and the curve areas on hand-worked examples, and the equivalences the engine relies
 * on: merging partitions' rankings in any grouping gives one ranking, and a ranking cut into
 * score ranges, each range's part computed from the ranks and weights above it, stitches to the
 * whole ranking's areas.
 */
class CurveAreasTest {
  /** Builds a ranking from (score, positive) pairs, every weight 1. */
  private static RankedScores ranked(double[] scores, boolean[] positive) {
    RankedScores.Builder b = new RankedScores.Builder();
    for (int i = 0; i < scores.length; i++) {
      b.add(scores[i], positive[i], 1.0);
    }
    return b.build();
  }

  @Test
  void aSmallRankingGivesTheHandWorkedAreas() {
    // Scores 0.9+, 0.8-, 0.7+, 0.7-, 0.2-: P = 2, N = 3. Points (FPR, TPR) at each distinct
    // score: 0.9 (0, 1/2), 0.8 (1/3, 1/2), 0.7 (2/3, 1), 0.2 (1, 1); with (0,0) and (1,1):
    // ROC area = 0 + 1/3·1/2 + 1/3·(1/2 + 1)/2 + 1/3·1 + 0 = 1/6 + 1/4 + 1/3 = 0.75.
    // PR points (recall, precision): 0.9 (1/2, 1), 0.8 (1/2, 1/2), 0.7 (1, 1/2), 0.2 (1, 2/5),
    // starting at (0, 1): area = 1/2·1 + 0 + 1/2·(1/2 + 1/2)/2... = 0.5 + 0 + 0.25 + 0 = 0.75.
    RankedScores r = ranked(new double[] {0.7, 0.2, 0.9, 0.7, 0.8},
        new boolean[] {true, false, true, false, false});
    assertEquals(4, r.size());
    assertEquals(0.9, r.score(0));
    assertEquals(1.0, r.positives(2));
    assertEquals(1.0, r.negatives(2));
    double[] areas = CurveAreas.of(r, CurveAreas.DEFAULT_BINS);
    assertEquals(0.75, areas[0], 1e-15);
    assertEquals(0.75, areas[1], 1e-15);
  }

  @Test
  void withMoreThanTwiceTheBinsTheScoresAreGroupedInRankOrder() {
    // 10 distinct scores, 2 bins: groups of 5, points after ranks 5 and 10 only.
    double[] s = new double[10];
    boolean[] p = new boolean[10];
    for (int i = 0; i < 10; i++) {
      s[i] = i;
      p[i] = i >= 5; // the top five are positive: a perfect ranking
    }
    RankedScores r = ranked(s, p);
    assertEquals(5, CurveAreas.grouping(10, 2));
    double[] areas = CurveAreas.of(r, 2);
    // Points (0, 1) and (1, 1): ROC 1; PR points (1, 1) and (1, 1/2) after (0, 1): area 1.
    assertEquals(1.0, areas[0], 0.0);
    assertEquals(1.0, areas[1], 0.0);
    // 4 bins: grouping ⌊10/4⌋ = 2, five points.
    assertEquals(2, CurveAreas.grouping(10, 4));
    assertEquals(1, CurveAreas.grouping(10, 6), "below 2, every score is a point");
  }

  @Test
  void zerosOfBothSignsAndNansAreDistinctScoresInDoubleCompareOrder() {
    RankedScores r = ranked(new double[] {0.0, -0.0, Double.NaN, Double.NaN, 1.0},
        new boolean[] {true, false, true, false, true});
    assertEquals(4, r.size());
    assertEquals(Double.NaN, r.score(0));
    assertEquals(1.0, r.positives(0), "every NaN is one score");
    assertEquals(1.0, r.negatives(0));
    assertEquals(1.0, r.score(1));
    assertEquals(Double.doubleToRawLongBits(0.0), Double.doubleToRawLongBits(r.score(2)));
    assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(r.score(3)));
  }

  private static RankedScores randomRanking(Random rnd, int n, boolean weighted) {
    RankedScores.Builder b = new RankedScores.Builder();
    for (int i = 0; i < n; i++) {
      // Rounded, so that scores repeat within and across partitions.
      double score = Math.round(rnd.nextGaussian() * 300) / 100.0;
      boolean positive = rnd.nextDouble() < 0.5 + 0.1 * score;
      b.add(score, positive, weighted ? rnd.nextInt(4) * 0.5 : 1.0);
    }
    return b.build();
  }

  @Test
  void mergedRankingsAndScoreRangesGiveTheWholeRankingsAreas() {
    Random rnd = new Random(11);
    for (boolean weighted : new boolean[] {false, true}) {
      for (int bins : new int[] {0, 10, 1000}) {
        List<RankedScores> parts = new ArrayList<>();
        RankedScores.Builder whole = new RankedScores.Builder();
        for (int p = 0; p < 5; p++) {
          RankedScores part = randomRanking(new Random(100 + p), 3000, weighted);
          parts.add(part);
          for (int i = 0; i < part.size(); i++) {
            // Each distinct score's summed weights, as one row per class (a score whose rows all
            // weigh 0 is still a score, as in Spark).
            whole.add(part.score(i), true, part.positives(i));
            whole.add(part.score(i), false, part.negatives(i));
          }
        }
        RankedScores merged = RankedScores.merge(parts);
        RankedScores reference = whole.build();
        assertEquals(reference.size(), merged.size());
        for (int i = 0; i < merged.size(); i++) {
          assertEquals(reference.score(i), merged.score(i));
          // Sums of multiples of 0.5 below 2^52: exact in any order.
          assertEquals(reference.positives(i), merged.positives(i), 0.0);
          assertEquals(reference.negatives(i), merged.negatives(i), 0.0);
        }
        double[] expected = CurveAreas.of(merged, bins);

        // The same ranking cut into ranges at random scores, each part from what is above it.
        int cuts = 1 + rnd.nextInt(6);
        List<Integer> at = new ArrayList<>();
        for (int c = 0; c < cuts; c++) {
          at.add(rnd.nextInt(merged.size()));
        }
        at.add(0);
        at.add(merged.size());
        at.sort(null);
        CurveAreas.Totals totals = new CurveAreas.Totals(merged.size(),
            CurveAreas.grouping(merged.size(), bins), merged.totalPositives(),
            merged.totalNegatives());
        List<CurveAreas.Partial> partials = new ArrayList<>();
        double tp = 0;
        double fp = 0;
        for (int k = 0; k + 1 < at.size(); k++) {
          RankedScores range = merged.slice(at.get(k), at.get(k + 1));
          partials.add(CurveAreas.partial(range, new CurveAreas.Position(at.get(k), tp, fp),
              totals));
          tp += range.totalPositives();
          fp += range.totalNegatives();
        }
        double[] stitched = CurveAreas.stitch(partials);
        // Only the order of the additions differs: a few units in the last place.
        assertEquals(expected[0], stitched[0], 1e-12, weighted + ", " + bins + " bins, ROC");
        assertEquals(expected[1], stitched[1], 1e-12, weighted + ", " + bins + " bins, PR");
      }
    }
  }

  @Test
  void aRankingWithoutScoresHasNoAreas() {
    double[] areas = CurveAreas.of(RankedScores.empty(), CurveAreas.DEFAULT_BINS);
    assertEquals(Double.NaN, areas[0]);
    assertEquals(Double.NaN, areas[1]);
  }
}
