package io.github.sparkperceptron.internal.kernel;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Objects;

/**
 * The training data of one worker: feature rows, their class indices and (optionally) their
 * sample weights, built once per training and cached by Spark for every epoch.
 *
 * <p>A plain final class of primitive arrays, so that Spark's serializers (Java and Kryo) and its
 * size estimator handle it without surprises.
 */
public final class TrainingBlock implements Serializable {
  private static final long serialVersionUID = 1L;

  private final FeatureBlock features;
  private final int[] labels;
  private final double[] weights;
  private final double totalWeight;
  /** The map from the rows' feature numbers to the model's, or {@code null} when they are the same. */
  private final LocalFeatures localFeatures;

  /**
   * @param features the rows
   * @param labels class index of each row, 0 .. K-1
   * @param weights sample weight of each row, or {@code null} when every weight is 1
   */
  public TrainingBlock(FeatureBlock features, int[] labels, double[] weights) {
    this(features, labels, weights, null);
  }

  /**
   * A block whose rows are numbered by the worker's own features ({@link LocalFeatures}): row
   * entries use local numbers 0 .. m−1 and {@code features.numFeatures()} is m.
   *
   * @param localFeatures the map to the model's feature numbers, or {@code null} when the rows
   *     use them already
   */
  public TrainingBlock(FeatureBlock features, int[] labels, double[] weights,
      LocalFeatures localFeatures) {
    this.features = Objects.requireNonNull(features, "features");
    if (localFeatures != null && localFeatures.size() != features.numFeatures()) {
      throw new IllegalArgumentException("a map of " + localFeatures.size()
          + " local features for rows of " + features.numFeatures());
    }
    this.localFeatures = localFeatures;
    this.labels = Objects.requireNonNull(labels, "labels");
    this.weights = weights;
    if (labels.length != features.numRows() || (weights != null && weights.length != labels.length)) {
      throw new IllegalArgumentException("block has " + features.numRows() + " rows but "
          + labels.length + " labels and " + (weights == null ? "no" : weights.length) + " weights");
    }
    this.totalWeight = totalWeight(labels, weights);
  }

  private TrainingBlock(FeatureBlock features, int[] labels, double[] weights,
      LocalFeatures localFeatures, double totalWeight) {
    this.features = features;
    if (localFeatures != null && localFeatures.size() != features.numFeatures()) {
      throw new IllegalArgumentException("a map of " + localFeatures.size()
          + " local features for rows of " + features.numFeatures());
    }
    this.localFeatures = localFeatures;
    this.labels = labels;
    this.weights = weights;
    this.totalWeight = totalWeight;
  }

  private static double totalWeight(int[] labels, double[] weights) {
    double total = 0.0;
    if (weights == null) {
      total = labels.length;
    } else {
      for (double w : weights) {
        total += w;
      }
    }
    return total;
  }

  /**
   * This block as {@link TrainingBlockBuilder} would have built it from the same rows, in their
   * stored order, with rows {@code width} features wide (at least its own width, and no local
   * feature numbers): the rows of a LIBSVM input are read before its width is known. A sparse
   * block keeps its arrays (its storage choice stands at any larger width); a dense one is
   * built again, so that the storage choice is the one the larger width makes.
   */
  public TrainingBlock widened(int width) {
    if (localFeatures != null) {
      return widenedLocal(width);
    }
    if (width < features.numFeatures()) {
      throw new IllegalArgumentException("cannot widen a block of " + features.numFeatures()
          + " features to " + width);
    }
    if (width == features.numFeatures()) {
      return this;
    }
    if (features instanceof CsrFeatureBlock) {
      return new TrainingBlock(((CsrFeatureBlock) features).withNumFeatures(width), labels,
          weights);
    }
    TrainingBlockBuilder builder = new TrainingBlockBuilder(width);
    int[] rowIndices = new int[features.maxStoredPerRow()];
    double[] rowValues = new double[rowIndices.length];
    for (int r = 0; r < labels.length; r++) {
      int n = features.copyRow(r, rowIndices, rowValues);
      builder.addSparse(labels[r], weight(r), rowIndices, rowValues, n);
    }
    return builder.build();
  }

  /**
   * A block with local feature numbers, built again at model width {@code width}: the storage
   * choice (dense or sparse) and the local numbering are those a build at that width makes.
   */
  private TrainingBlock widenedLocal(int width) {
    if (width < localFeatures.globalFeatures()) {
      throw new IllegalArgumentException("cannot widen a block of "
          + localFeatures.globalFeatures() + " features to " + width);
    }
    if (width == localFeatures.globalFeatures()) {
      return this;
    }
    TrainingBlockBuilder builder = new TrainingBlockBuilder(width);
    int[] rowIndices = new int[Math.max(1, features.maxStoredPerRow())];
    double[] rowValues = new double[rowIndices.length];
    for (int r = 0; r < labels.length; r++) {
      int n = features.copyRow(r, rowIndices, rowValues);
      for (int k = 0; k < n; k++) {
        rowIndices[k] = localFeatures.global(rowIndices[k]);
      }
      builder.addSparse(labels[r], weight(r), rowIndices, rowValues, n);
    }
    // The rows are already in their stored order.
    return builder.buildLocal(null);
  }

  /**
   * The rows of {@code parts}, one block after the other, as one block: a view over their
   * feature rows ({@link ConcatFeatureBlock}, no copy of the stored values) with their labels and
   * weights copied into arrays of the view's own. The parts must number their features alike
   * (the same local feature map, or none). A single part is returned as it is.
   */
  public static TrainingBlock concat(TrainingBlock[] parts) {
    if (parts.length == 1) {
      return parts[0];
    }
    if (parts.length == 0) {
      throw new IllegalArgumentException("no blocks to view as one");
    }
    LocalFeatures map = parts[0].localFeatures;
    int rows = 0;
    boolean weighted = false;
    FeatureBlock[] features = new FeatureBlock[parts.length];
    for (int p = 0; p < parts.length; p++) {
      TrainingBlock b = parts[p];
      if (b.localFeatures != map && (map == null || !map.sameAs(b.localFeatures))) {
        throw new IllegalArgumentException("blocks numbered by other features cannot be viewed"
            + " as one");
      }
      features[p] = b.features;
      rows = Math.addExact(rows, b.labels.length);
      weighted |= b.weights != null;
    }
    int[] labels = new int[rows];
    double[] weights = weighted ? new double[rows] : null;
    int at = 0;
    for (TrainingBlock b : parts) {
      int n = b.labels.length;
      System.arraycopy(b.labels, 0, labels, at, n);
      if (weighted) {
        if (b.weights == null) {
          Arrays.fill(weights, at, at + n, 1.0);
        } else {
          System.arraycopy(b.weights, 0, weights, at, n);
        }
      }
      at += n;
    }
    return new TrainingBlock(new ConcatFeatureBlock(features,
        parts[0].features.numFeatures()), labels, weights, map);
  }

  /**
   * These rows numbered by {@code map} instead ({@code null}: by the model's numbers): the same
   * arrays, another map of as many features as the rows are wide.
   */
  public TrainingBlock withLocalFeatures(LocalFeatures map) {
    return new TrainingBlock(features, labels, weights, map, totalWeight);
  }

  /** An empty block, for workers without rows. */
  public static TrainingBlock empty(int numFeatures) {
    return new TrainingBlock(new CsrFeatureBlock(numFeatures, new int[] {0}, new int[0],
        new double[0]), new int[0], null);
  }

  public FeatureBlock features() {
    return features;
  }

  /**
   * The map from the rows' feature numbers to the model's, or {@code null} when the rows use the
   * model's numbers (then {@code features().numFeatures()} is the model's d).
   */
  public LocalFeatures localFeatures() {
    return localFeatures;
  }

  public int numRows() {
    return labels.length;
  }

  /** Class index of a row. */
  public int label(int row) {
    return labels[row];
  }

  /** Sample weight of a row (1 when the block has no weights). */
  public double weight(int row) {
    return weights == null ? 1.0 : weights[row];
  }

  /** The class indices; not a copy, the learners read it directly. */
  int[] labelArray() {
    return labels;
  }

  /** The sample weights, or {@code null} when all are 1; not a copy. */
  double[] weightArray() {
    return weights;
  }

  /** Σ of the sample weights (the row count when unweighted). */
  public double totalWeight() {
    return totalWeight;
  }

  /** Bytes held by the block's arrays. */
  public long sizeInBytes() {
    return features.sizeInBytes() + 4L * labels.length + (weights == null ? 0 : 8L * weights.length)
        + (localFeatures == null ? 0 : localFeatures.sizeInBytes());
  }
}
