package io.github.sparkperceptron.internal.kernel;

/**
 * How a state of K' weight rows over d features (plus the bias, "feature" d) is laid out in one
 * {@code double[]} of K'·(d+1) values.
 *
 * <pre>
 * CLASS_MAJOR    w[k·(d+1) + j]   K' rows of d+1, one class after another: the library's global
 *                                 layout (exchange, mixing, checkpoints, votes, models)
 * FEATURE_MAJOR  w[j·K' + k]      a feature's K' weights side by side, as LIBLINEAR's multiclass
 *                                 w, Vowpal Wabbit's interleaved weights and Spark's multinomial
 *                                 aggregator lay them out: a worker's working copy
 * </pre>
 *
 * <p>Scoring a row of nnz stored values reads K'·nnz weights in both; class-major spreads them
 * over K'·nnz cache lines and pages (the rows lie 8·(d+1) bytes apart), feature-major over nnz
 * runs of K' consecutive doubles. With K' = 1 (binary models) the two are the same array.
 */
public enum StateLayout {
  CLASS_MAJOR,
  FEATURE_MAJOR;

  /**
   * The position of weight row {@code row}'s coefficient of {@code feature} (d for the bias) in a
   * state of {@code weightRows} rows over {@code numFeatures} features.
   */
  public int index(int row, int feature, int numFeatures, int weightRows) {
    return this == CLASS_MAJOR ? row * (numFeatures + 1) + feature : feature * weightRows + row;
  }
}
