package io.github.sparkperceptron.internal.evaluation;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A binary classifier's scored rows ranked once: the distinct scores in decreasing order, each
 * with the summed weights of its positive (class 1) and negative rows. What the ROC and
 * precision-recall curves are made of ({@link CurveAreas}); one partition builds its own
 * ({@link Builder}), and runs merge ({@link #merge}) or split into score ranges ({@link #slice}).
 *
 * <p>Order and equality are {@link Double#compare}'s, as those of Spark's
 * {@code BinaryClassificationMetrics} (a sort by the boxed score, grouped by its equality): −0.0
 * and 0.0 are distinct scores, every NaN is one score, above all others.
 *
 * <p>Cost: building sorts the partition's scores, O(n log n) on primitive arrays (per class when
 * every weight is 1); a run holds 24 bytes per distinct score.
 */
public final class RankedScores implements Serializable {
  private static final long serialVersionUID = 1L;

  private final double[] scores;
  private final double[] positives;
  private final double[] negatives;
  private final int size;

  private RankedScores(double[] scores, double[] positives, double[] negatives, int size) {
    this.scores = scores;
    this.positives = positives;
    this.negatives = negatives;
    this.size = size;
  }

  /** No scores. */
  public static RankedScores empty() {
    return new RankedScores(new double[0], new double[0], new double[0], 0);
  }

  /** The number of distinct scores. */
  public int size() {
    return size;
  }

  /** The i-th highest distinct score. */
  public double score(int i) {
    return scores[i];
  }

  /** Σ of the weights of the positive rows with the i-th highest score. */
  public double positives(int i) {
    return positives[i];
  }

  /** Σ of the weights of the negative rows with the i-th highest score. */
  public double negatives(int i) {
    return negatives[i];
  }

  /** Σ of the positive rows' weights. */
  public double totalPositives() {
    return sum(positives, size);
  }

  /** Σ of the negative rows' weights. */
  public double totalNegatives() {
    return sum(negatives, size);
  }

  private static double sum(double[] values, int n) {
    double total = 0.0;
    for (int i = 0; i < n; i++) {
      total += values[i];
    }
    return total;
  }

  /**
   * The number of distinct scores that rank strictly above {@code cut} (by
   * {@link Double#compare}): where a range ending at {@code cut} starts.
   */
  public int countAbove(double cut) {
    int lo = 0;
    int hi = size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Double.compare(scores[mid], cut) > 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** The distinct scores {@code from .. to − 1}, as a run of their own (the arrays copied). */
  public RankedScores slice(int from, int to) {
    return new RankedScores(Arrays.copyOfRange(scores, from, to),
        Arrays.copyOfRange(positives, from, to), Arrays.copyOfRange(negatives, from, to),
        to - from);
  }

  /**
   * Up to {@code count} of the scores, evenly spaced in rank from the highest: what a driver
   * cuts the score axis into ranges of similar size with.
   */
  public double[] sample(int count) {
    int n = Math.min(count, size);
    double[] out = new double[n];
    for (int i = 0; i < n; i++) {
      out[i] = scores[(int) ((long) i * size / n)];
    }
    return out;
  }

  /**
   * The runs as one: every distinct score once, its weights summed. The runs are merged two by
   * two along a fixed binary tree over the list (O(n log k) for k runs), so the sums do not
   * depend on which run arrived first, only on the list's order.
   */
  public static RankedScores merge(List<RankedScores> runs) {
    if (runs.isEmpty()) {
      return empty();
    }
    List<RankedScores> level = new ArrayList<>(runs);
    while (level.size() > 1) {
      List<RankedScores> next = new ArrayList<>((level.size() + 1) / 2);
      for (int k = 0; k + 1 < level.size(); k += 2) {
        next.add(merge(level.get(k), level.get(k + 1)));
      }
      if (level.size() % 2 == 1) {
        next.add(level.get(level.size() - 1));
      }
      level = next;
    }
    return level.get(0);
  }

  private static RankedScores merge(RankedScores a, RankedScores b) {
    int capacity = a.size + b.size;
    double[] s = new double[capacity];
    double[] p = new double[capacity];
    double[] q = new double[capacity];
    int i = 0;
    int j = 0;
    int n = 0;
    while (i < a.size || j < b.size) {
      int c = i == a.size ? -1 : j == b.size ? 1 : Double.compare(a.scores[i], b.scores[j]);
      if (c > 0) {
        s[n] = a.scores[i];
        p[n] = a.positives[i];
        q[n] = a.negatives[i];
        i++;
      } else if (c < 0) {
        s[n] = b.scores[j];
        p[n] = b.positives[j];
        q[n] = b.negatives[j];
        j++;
      } else {
        s[n] = a.scores[i];
        p[n] = a.positives[i] + b.positives[j];
        q[n] = a.negatives[i] + b.negatives[j];
        i++;
        j++;
      }
      n++;
    }
    return n == capacity ? new RankedScores(s, p, q, n)
        : new RankedScores(Arrays.copyOf(s, n), Arrays.copyOf(p, n), Arrays.copyOf(q, n), n);
  }

  /**
   * Collects a partition's (score, label, weight) rows and ranks them once, at {@link #build()}.
   * Adding is amortised O(1) and allocates only when the buffers grow.
   */
  public static final class Builder {
    private double[] positiveScores = new double[64];
    private double[] negativeScores = new double[64];
    /** Per class, the rows' weights, or {@code null} while every weight is 1. */
    private double[] positiveWeights;
    private double[] negativeWeights;
    private int numPositive;
    private int numNegative;

    /** Adds one row: {@code positive} for class 1; {@code weight} ≥ 0. */
    public void add(double score, boolean positive, double weight) {
      if (positive) {
        if (numPositive == positiveScores.length) {
          positiveScores = Arrays.copyOf(positiveScores, numPositive * 2);
        }
        positiveWeights = weigh(positiveWeights, numPositive, positiveScores.length, weight);
        positiveScores[numPositive++] = score;
      } else {
        if (numNegative == negativeScores.length) {
          negativeScores = Arrays.copyOf(negativeScores, numNegative * 2);
        }
        negativeWeights = weigh(negativeWeights, numNegative, negativeScores.length, weight);
        negativeScores[numNegative++] = score;
      }
    }

    /** The weights array after recording {@code weight} at {@code index} (created at the first weight ≠ 1). */
    private static double[] weigh(double[] weights, int index, int capacity, double weight) {
      double[] w = weights;
      if (w == null && weight == 1.0) {
        return null;
      }
      if (w == null) {
        w = new double[capacity];
        Arrays.fill(w, 0, index, 1.0);
      } else if (w.length < capacity) {
        w = Arrays.copyOf(w, capacity);
      }
      w[index] = weight;
      return w;
    }

    /** The ranked run; the builder is done afterwards. */
    public RankedScores build() {
      sortDescending(positiveScores, positiveWeights, numPositive);
      sortDescending(negativeScores, negativeWeights, numNegative);
      int capacity = numPositive + numNegative;
      double[] s = new double[capacity];
      double[] p = new double[capacity];
      double[] q = new double[capacity];
      int i = 0;
      int j = 0;
      int n = 0;
      while (i < numPositive || j < numNegative) {
        double score;
        if (j == numNegative || (i < numPositive
            && Double.compare(positiveScores[i], negativeScores[j]) >= 0)) {
          score = positiveScores[i];
        } else {
          score = negativeScores[j];
        }
        double pos = 0.0;
        double neg = 0.0;
        while (i < numPositive && Double.compare(positiveScores[i], score) == 0) {
          pos += positiveWeights == null ? 1.0 : positiveWeights[i];
          i++;
        }
        while (j < numNegative && Double.compare(negativeScores[j], score) == 0) {
          neg += negativeWeights == null ? 1.0 : negativeWeights[j];
          j++;
        }
        s[n] = score;
        p[n] = pos;
        q[n] = neg;
        n++;
      }
      return new RankedScores(Arrays.copyOf(s, n), Arrays.copyOf(p, n), Arrays.copyOf(q, n), n);
    }

    /**
     * Sorts the first n scores into decreasing {@link Double#compare} order, their weights (if
     * any) along with them, equal scores by decreasing weight: a total order, so the sums over
     * equal scores do not depend on the rows' input order.
     */
    private static void sortDescending(double[] scores, double[] weights, int n) {
      if (weights == null) {
        Arrays.sort(scores, 0, n);
        for (int i = 0, k = n - 1; i < k; i++, k--) {
          double t = scores[i];
          scores[i] = scores[k];
          scores[k] = t;
        }
        return;
      }
      // A bottom-up merge sort of the pairs: O(n log n) whatever the input, no objects.
      double[] s = scores;
      double[] w = weights;
      double[] s2 = new double[n];
      double[] w2 = new double[n];
      for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
          int mid = Math.min(lo + width, n);
          int hi = Math.min(lo + 2 * width, n);
          int a = lo;
          int b = mid;
          for (int k = lo; k < hi; k++) {
            boolean takeA = b >= hi || (a < mid && before(s[a], w[a], s[b], w[b]));
            s2[k] = takeA ? s[a] : s[b];
            w2[k] = takeA ? w[a++] : w[b++];
          }
        }
        double[] t = s;
        s = s2;
        s2 = t;
        t = w;
        w = w2;
        w2 = t;
      }
      if (s != scores) {
        System.arraycopy(s, 0, scores, 0, n);
        System.arraycopy(w, 0, weights, 0, n);
      }
    }

    /** Whether (s1, w1) comes no later than (s2, w2) in decreasing order. */
    private static boolean before(double s1, double w1, double s2, double w2) {
      int c = Double.compare(s1, s2);
      return c > 0 || (c == 0 && Double.compare(w1, w2) >= 0);
    }
  }
}
