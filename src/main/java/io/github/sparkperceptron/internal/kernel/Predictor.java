package io.github.sparkperceptron.internal.kernel;

import java.io.Serializable;

/**
 * The prediction rule, written once for the whole library, and predictions of a linear model (the
 * kernel's weight layout) or a vote on a block's rows, for scoring held-out rows during training.
 *
 * <pre>
 * binary      predict 1 when the margin w·x + b (or a vote total) exceeds the threshold, else 0
 *             ({@link #binaryClass}; a margin of exactly the threshold predicts 0, so with
 *             threshold 0 a zero margin is class 0, as training counts it a mistake for class 1)
 * multiclass  predict the class of the highest score, ties to the lowest class index
 *             ({@link #argmax}, or {@link #overtakes} one class at a time)
 * </pre>
 *
 * <p>{@link io.github.sparkperceptron.ml.PerceptronClassificationModel} (its predictions and
 * the scorer its transform broadcasts), {@link VotedPerceptron} (each vector's vote) and the
 * validation scoring here all call these methods. (Training's mistake test, a margin ≤ 0, is the
 * update rule's, in {@link OnlineLearner}.)
 *
 * <p>A multiclass linear predictor holds its weights feature-major: a row's K scores read nnz
 * runs of K weights, adding per class the same products in the same order as the K class-major
 * dot products, so the scores are the same bits ({@link ClassSums}). Binary weights are one row,
 * d coefficients then the bias.
 */
public final class Predictor implements Serializable {
  private static final long serialVersionUID = 2L;

  private final int numClasses;
  private final int numFeatures;
  private final double threshold;
  /**
   * The linear weights in scoring order: binary, the d coefficients then the bias; multiclass,
   * feature-major ({@link StateLayout#FEATURE_MAJOR}: feature j's K weights at j·K, the K
   * intercepts last), so that a row's scores are nnz runs of K weights ({@link ClassSums}).
   * {@code null} for a vote.
   */
  private final double[] weights;
  private final VotedPerceptron vote;
  /**
   * For a vote over a block whose rows use a worker's own feature numbers: the map back to the
   * model's, applied to each row before it is voted on; {@code null} otherwise.
   */
  private final LocalFeatures rowMap;
  /** Per-thread buffers of K scores: one predictor serves the concurrent tasks of an executor. */
  private transient volatile ThreadLocal<double[]> scoreBuffers;
  /** 0 .. d−1, what a dense row's indices are for a vote. */
  private transient volatile int[] allFeatures;

  /** A predictor for linear weights in the kernel's layout (K' class-major rows of d + 1, bias last). */
  public static Predictor linear(int numClasses, int numFeatures, double threshold,
      double[] weights) {
    int rows = numClasses == 2 ? 1 : numClasses;
    requireLength(weights.length, (long) rows * (numFeatures + 1), "state weights");
    double[] scoring = new double[weights.length];
    for (int k = 0; k < rows; k++) {
      for (int j = 0; j <= numFeatures; j++) {
        scoring[StateLayout.FEATURE_MAJOR.index(k, j, numFeatures, rows)] =
            weights[StateLayout.CLASS_MAJOR.index(k, j, numFeatures, rows)];
      }
    }
    return new Predictor(numClasses, numFeatures, threshold, scoring, null);
  }

  /**
   * A predictor for a model's K' rows of d coefficients (row after row) and K' intercepts: the
   * broadcast scorer of a transform (one compact copy per executor, not one per task).
   */
  public static Predictor linear(int numClasses, int numFeatures, double threshold,
      double[] coefficients, double[] intercepts) {
    int rows = numClasses == 2 ? 1 : numClasses;
    requireLength(coefficients.length, (long) rows * numFeatures, "coefficients");
    requireLength(intercepts.length, rows, "intercepts");
    double[] scoring = new double[rows * (numFeatures + 1)];
    for (int k = 0; k < rows; k++) {
      for (int j = 0; j < numFeatures; j++) {
        scoring[j * rows + k] = coefficients[k * numFeatures + j];
      }
      scoring[numFeatures * rows + k] = intercepts[k];
    }
    return new Predictor(numClasses, numFeatures, threshold, scoring, null);
  }

  private static void requireLength(int actual, long expected, String what) {
    if (actual != expected) {
      throw new IllegalArgumentException(actual + " " + what + " where the model's shape needs "
          + expected);
    }
  }

  /** A predictor for a vote; {@code threshold} applies to the binary vote total. */
  public static Predictor voted(VotedPerceptron vote, double threshold) {
    return new Predictor(vote.numClasses(), vote.numFeatures(), threshold, null, vote);
  }

  private Predictor(int numClasses, int numFeatures, double threshold, double[] weights,
      VotedPerceptron vote) {
    this(numClasses, numFeatures, threshold, weights, vote, null);
  }

  private Predictor(int numClasses, int numFeatures, double threshold, double[] weights,
      VotedPerceptron vote, LocalFeatures rowMap) {
    this.numClasses = numClasses;
    this.numFeatures = numFeatures;
    this.threshold = threshold;
    this.weights = weights;
    this.vote = vote;
    this.rowMap = rowMap;
  }

  /**
   * This predictor for the rows of {@code block} as stored: itself when they use the model's
   * feature numbers, else (a training block numbered by its worker's own features,
   * {@link TrainingBlock#localFeatures()}) a linear predictor over those features
   * ({@link #forFeatures}), or a vote that maps each row back to the model's numbers first. The
   * block methods ({@link #predict(FeatureBlock, int, int[], double[])}, {@link #binaryScore},
   * {@link #rawScores(FeatureBlock, int, int[], double[], double[])}) of the result score the
   * block's rows as the model scores the same rows given whole. O(K'·(m+1)) for a linear model.
   */
  public Predictor forBlock(TrainingBlock block) {
    LocalFeatures map = block.localFeatures();
    if (map == null) {
      return this;
    }
    if (vote == null) {
      return forFeatures(map);
    }
    return new Predictor(numClasses, map.size(), threshold, null, vote, map);
  }

  /**
   * This linear predictor for rows numbered by a worker's own features ({@code map}, a block's
   * {@link TrainingBlock#localFeatures()}): the weights of the m features the map holds, in the
   * same layout, so that a row's scores add the same products in the same order, the same bits.
   * O(K'·(m+1)); for a vote, which scores rows in the model's numbers, it is refused.
   */
  public Predictor forFeatures(LocalFeatures map) {
    if (vote != null) {
      throw new IllegalStateException("a vote scores rows in the model's feature numbers");
    }
    if (map.globalFeatures() != numFeatures) {
      throw new IllegalArgumentException("a map over " + map.globalFeatures()
          + " features for a model of " + numFeatures);
    }
    int rows = numClasses == 2 ? 1 : numClasses;
    int m = map.size();
    double[] local = new double[rows * (m + 1)];
    for (int l = 0; l <= m; l++) {
      int from = (l == m ? numFeatures : map.global(l)) * rows;
      System.arraycopy(weights, from, local, l * rows, rows);
    }
    return new Predictor(numClasses, m, threshold, local, null);
  }

  /** The same weights or vote with another binary threshold (the arrays are shared). */
  public Predictor withThreshold(double newThreshold) {
    return new Predictor(numClasses, numFeatures, newThreshold, weights, vote, rowMap);
  }

  public int numClasses() {
    return numClasses;
  }

  public int numFeatures() {
    return numFeatures;
  }

  /** Whether this predictor is a vote (it scores rows in the model's feature numbers only). */
  public boolean isVote() {
    return vote != null;
  }

  /** The binary threshold this predictor applies. */
  public double threshold() {
    return threshold;
  }

  /**
   * The binary rule: 1 when {@code margin > threshold}, else 0. An infinite threshold is allowed
   * (+∞: always 0, −∞: 1 for every margin above −∞); a NaN margin predicts 0.
   */
  public static int binaryClass(double margin, double threshold) {
    return margin > threshold ? 1 : 0;
  }

  /** The multiclass rule: the index of the largest score, the lowest index among ties. */
  public static int argmax(double[] scores) {
    int best = 0;
    for (int k = 1; k < scores.length; k++) {
      if (overtakes(scores[k], scores[best])) {
        best = k;
      }
    }
    return best;
  }

  /**
   * The multiclass rule, one class at a time in index order: whether a class scoring
   * {@code score} takes the lead from the best so far. Only a strictly higher score does, which
   * sends ties to the lowest class index.
   */
  public static boolean overtakes(double score, double best) {
    return score > best;
  }

  /**
   * The raw scores of a row given as its sorted stored entries (the first {@code nnz} of
   * {@code indices}/{@code values}): binary, one number (the margin w·x + b, or the vote total
   * v(x)); multiclass, the K scores w_k·x + b_k (or the K vote totals). A new array.
   */
  public double[] rawScores(int[] indices, double[] values, int nnz) {
    if (vote != null) {
      return vote.votes(indices, values, nnz);
    }
    if (numClasses == 2) {
      return new double[] {margin(indices, values, nnz)};
    }
    double[] scores = new double[numClasses];
    ClassSums.sparse(indices, values, 0, nnz, weights, numClasses, scores);
    addIntercepts(scores);
    return scores;
  }

  /** {@link #rawScores(int[], double[], int)} of a dense row of d values (zeros included). */
  public double[] rawScoresDense(double[] x) {
    if (vote != null) {
      return vote.votes(allFeatures(), x, numFeatures);
    }
    if (numClasses == 2) {
      return new double[] {marginDense(x)};
    }
    double[] scores = new double[numClasses];
    ClassSums.dense(x, 0, numFeatures, weights, numClasses, scores);
    addIntercepts(scores);
    return scores;
  }

  /** The predicted class of a row given as its sorted stored entries. */
  public int predict(int[] indices, double[] values, int nnz) {
    if (vote != null) {
      return fromRaw(vote.votes(indices, values, nnz));
    }
    if (numClasses == 2) {
      return binaryClass(margin(indices, values, nnz), threshold);
    }
    double[] scores = scoreBuffer();
    ClassSums.sparse(indices, values, 0, nnz, weights, numClasses, scores);
    addIntercepts(scores);
    return argmax(scores);
  }

  /** The predicted class of a dense row of d values. */
  public int predictDense(double[] x) {
    if (vote != null) {
      return fromRaw(vote.votes(allFeatures(), x, numFeatures));
    }
    if (numClasses == 2) {
      return binaryClass(marginDense(x), threshold);
    }
    double[] scores = scoreBuffer();
    ClassSums.dense(x, 0, numFeatures, weights, numClasses, scores);
    addIntercepts(scores);
    return argmax(scores);
  }

  /** The prediction from raw scores as {@link #rawScores} returns them. */
  public int fromRaw(double[] raw) {
    return numClasses == 2 ? binaryClass(raw[0], threshold) : argmax(raw);
  }

  private double margin(int[] indices, double[] values, int nnz) {
    final double[] w = weights;
    double sum = 0.0;
    for (int t = 0; t < nnz; t++) {
      sum += values[t] * w[indices[t]];
    }
    return sum + w[numFeatures];
  }

  private double marginDense(double[] x) {
    final double[] w = weights;
    double sum = 0.0;
    for (int j = 0; j < numFeatures; j++) {
      sum += x[j] * w[j];
    }
    return sum + w[numFeatures];
  }

  private void addIntercepts(double[] scores) {
    final int bias = numFeatures * numClasses;
    for (int k = 0; k < numClasses; k++) {
      scores[k] += weights[bias + k];
    }
  }

  private double[] scoreBuffer() {
    ThreadLocal<double[]> buffers = scoreBuffers;
    if (buffers == null) {
      int k = numClasses;
      buffers = ThreadLocal.withInitial(() -> new double[k]);
      scoreBuffers = buffers;
    }
    return buffers.get();
  }

  private int[] allFeatures() {
    int[] all = allFeatures;
    if (all == null) {
      all = new int[numFeatures];
      for (int j = 0; j < numFeatures; j++) {
        all[j] = j;
      }
      allFeatures = all;
    }
    return all;
  }

  /**
   * The predicted class of a block row. The buffers (at least d long, used only by votes) belong
   * to the caller; a multiclass linear prediction uses a buffer of this thread's, so that one
   * predictor can be shared by concurrent tasks and a row allocates nothing.
   */
  public int predict(FeatureBlock x, int row, int[] rowIndices, double[] rowValues) {
    if (vote != null) {
      return fromRaw(votes(x, row, rowIndices, rowValues));
    }
    if (numClasses == 2) {
      return binaryClass(x.dot(row, weights, 0) + weights[numFeatures], threshold);
    }
    double[] scores = scoreBuffer();
    x.dotClasses(row, weights, numClasses, scores);
    addIntercepts(scores);
    return argmax(scores);
  }

  /**
   * The raw score of a block row for a binary model, what its raw prediction's second element
   * and the curve areas use: the margin w·x + b, or the vote total. The buffers (at least d
   * long, used only by votes) belong to the caller.
   *
   * @throws IllegalStateException for a multiclass model
   */
  public double binaryScore(FeatureBlock x, int row, int[] rowIndices, double[] rowValues) {
    if (numClasses != 2) {
      throw new IllegalStateException("a " + numClasses + "-class model has no binary score");
    }
    if (vote != null) {
      return votes(x, row, rowIndices, rowValues)[0];
    }
    return x.dot(row, weights, 0) + weights[numFeatures];
  }

  /**
   * The raw scores of a block row into {@code out} (what {@link #rawScores(int[], double[], int)}
   * returns: binary, the margin or vote total; multiclass, the K scores or vote totals). The
   * buffers (at least the block's {@code maxStoredPerRow()} long, used only by votes) belong to
   * the caller; a linear model allocates nothing.
   */
  public void rawScores(FeatureBlock x, int row, int[] rowIndices, double[] rowValues,
      double[] out) {
    if (vote != null) {
      double[] votes = votes(x, row, rowIndices, rowValues);
      System.arraycopy(votes, 0, out, 0, votes.length);
    } else if (numClasses == 2) {
      out[0] = x.dot(row, weights, 0) + weights[numFeatures];
    } else {
      x.dotClasses(row, weights, numClasses, out);
      addIntercepts(out);
    }
  }

  /** A block row's vote totals, its entries first mapped to the model's numbers if need be. */
  private double[] votes(FeatureBlock x, int row, int[] rowIndices, double[] rowValues) {
    int nnz = x.copyRow(row, rowIndices, rowValues);
    if (rowMap != null) {
      for (int t = 0; t < nnz; t++) {
        rowIndices[t] = rowMap.global(rowIndices[t]);
      }
    }
    return vote.votes(rowIndices, rowValues, nnz);
  }

  /**
   * Σ of the weights of the correctly predicted rows and Σ of all weights (sample weights only:
   * held-out accuracy is measured on the data as given, class weights are a training device).
   */
  public double[] weightedAccuracy(TrainingBlock block) {
    int[] rowIndices = vote == null ? null : new int[numFeatures];
    double[] rowValues = vote == null ? null : new double[numFeatures];
    double correct = 0;
    double total = 0;
    for (int r = 0; r < block.numRows(); r++) {
      double w = block.weight(r);
      if (predict(block.features(), r, rowIndices, rowValues) == block.label(r)) {
        correct += w;
      }
      total += w;
    }
    return new double[] {correct, total};
  }
}
