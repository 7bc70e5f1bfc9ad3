package io.github.sparkperceptron.internal.calibration;

import java.io.Serializable;
import java.util.List;

/**
 * The calibration rows as a calibrator sees them: each row's raw scores (one margin for a binary
 * model, K scores for K classes), its class index and its sample weight, in primitive arrays
 * (row after row). A worker fills one ({@link #withCapacity}, {@link #add}) and the driver joins
 * them in worker order ({@link #concat}), so that the same rows give the same sample, bit for bit.
 *
 * <p>Plain arrays, so that it travels through Spark's serializers as a task result.
 */
public final class ScoreSample implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int numClasses;
  private final int width;
  private final double[] scores;
  private final int[] labels;
  private final double[] weights;
  private int size;

  private ScoreSample(int numClasses, int capacity) {
    if (numClasses < 2) {
      throw new IllegalArgumentException("a sample needs at least 2 classes, got " + numClasses);
    }
    this.numClasses = numClasses;
    this.width = numClasses == 2 ? 1 : numClasses;
    this.scores = new double[Math.multiplyExact(capacity, width)];
    this.labels = new int[capacity];
    this.weights = new double[capacity];
  }

  /** An empty sample with room for {@code capacity} rows of a {@code numClasses}-class model. */
  public static ScoreSample withCapacity(int numClasses, int capacity) {
    return new ScoreSample(numClasses, capacity);
  }

  /**
   * A sample of the given rows: {@code scores} holds {@code labels.length} rows of
   * {@link #width()} scores each (copied).
   */
  public static ScoreSample of(int numClasses, double[] scores, int[] labels, double[] weights) {
    ScoreSample s = new ScoreSample(numClasses, labels.length);
    if (scores.length != s.scores.length || weights.length != labels.length) {
      throw new IllegalArgumentException(labels.length + " labels, " + weights.length
          + " weights and " + scores.length + " scores do not make rows of " + s.width
          + " score(s)");
    }
    for (int i = 0; i < labels.length; i++) {
      s.add(scores, i * s.width, labels[i], weights[i]);
    }
    return s;
  }

  /**
   * Appends a row: its {@link #width()} scores from {@code from[offset..]}, its class index and
   * weight.
   *
   * @throws IllegalStateException when the sample is full
   */
  public void add(double[] from, int offset, int label, double weight) {
    if (size == labels.length) {
      throw new IllegalStateException("the sample is full (" + size + " rows)");
    }
    System.arraycopy(from, offset, scores, size * width, width);
    labels[size] = label;
    weights[size] = weight;
    size++;
  }

  /** The samples one after the other, in list order. */
  public static ScoreSample concat(int numClasses, List<ScoreSample> parts) {
    long total = 0;
    for (ScoreSample p : parts) {
      total += p.size;
    }
    ScoreSample all = new ScoreSample(numClasses, Math.toIntExact(total));
    for (ScoreSample p : parts) {
      if (p.numClasses != numClasses) {
        throw new IllegalArgumentException("a sample of " + p.numClasses + " classes among "
            + numClasses);
      }
      System.arraycopy(p.scores, 0, all.scores, all.size * all.width, p.size * p.width);
      System.arraycopy(p.labels, 0, all.labels, all.size, p.size);
      System.arraycopy(p.weights, 0, all.weights, all.size, p.size);
      all.size += p.size;
    }
    return all;
  }

  public int numClasses() {
    return numClasses;
  }

  /** Scores per row: 1 for a binary model (its margin), K otherwise. */
  public int width() {
    return width;
  }

  /** The rows held. */
  public int size() {
    return size;
  }

  /** Score {@code k} of row {@code i} (binary: k = 0, the margin). */
  public double score(int i, int k) {
    return scores[i * width + k];
  }

  public int label(int i) {
    return labels[i];
  }

  public double weight(int i) {
    return weights[i];
  }

  /** The scores, row after row; not a copy (the first {@code size()·width()} are filled). */
  double[] scoreArray() {
    return scores;
  }

  /** The class indices; not a copy. */
  int[] labelArray() {
    return labels;
  }

  /** The sample weights; not a copy. */
  double[] weightArray() {
    return weights;
  }
}
