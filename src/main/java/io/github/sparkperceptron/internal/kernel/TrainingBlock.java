package io.github.sparkperceptron.internal.kernel;

import java.io.Serializable;
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
    double total = 0.0;
    if (weights == null) {
      total = labels.length;
    } else {
      for (double w : weights) {
        total += w;
      }
    }
    this.totalWeight = total;
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
