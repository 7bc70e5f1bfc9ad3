package io.github.sparkperceptron.kernel;

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
 * <p>{@link io.github.sparkperceptron.ml.PerceptronClassificationModel},
 * {@link VotedPerceptron} (each vector's vote) and the validation scoring here all call these
 * methods. (Training's mistake test, a margin ≤ 0, is the update rule's, in {@link OnlineLearner}.)
 */
public final class Predictor implements java.io.Serializable {
  private static final long serialVersionUID = 1L;

  private final int numClasses;
  private final int numFeatures;
  private final double threshold;
  private final double[] weights;
  private final VotedPerceptron vote;

  /** A predictor for linear weights (K' rows of d + 1, bias last). */
  public static Predictor linear(int numClasses, int numFeatures, double threshold,
      double[] weights) {
    return new Predictor(numClasses, numFeatures, threshold, weights, null);
  }

  /** A predictor for a vote; {@code threshold} applies to the binary vote total. */
  public static Predictor voted(VotedPerceptron vote, double threshold) {
    return new Predictor(vote.numClasses(), vote.numFeatures(), threshold, null, vote);
  }

  private Predictor(int numClasses, int numFeatures, double threshold, double[] weights,
      VotedPerceptron vote) {
    this.numClasses = numClasses;
    this.numFeatures = numFeatures;
    this.threshold = threshold;
    this.weights = weights;
    this.vote = vote;
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
   * The predicted class of a block row. The buffers (at least d long, used only by votes) belong
   * to the caller, so that one predictor can be shared by concurrent tasks.
   */
  public int predict(FeatureBlock x, int row, int[] rowIndices, double[] rowValues) {
    if (vote != null) {
      int nnz = x.copyRow(row, rowIndices, rowValues);
      double[] votes = vote.votes(rowIndices, rowValues, nnz);
      return numClasses == 2 ? binaryClass(votes[0], threshold) : argmax(votes);
    }
    int rowLength = numFeatures + 1;
    if (numClasses == 2) {
      return binaryClass(x.dot(row, weights, 0) + weights[numFeatures], threshold);
    }
    int best = 0;
    double bestScore = x.dot(row, weights, 0) + weights[numFeatures];
    for (int k = 1; k < numClasses; k++) {
      double score = x.dot(row, weights, k * rowLength) + weights[k * rowLength + numFeatures];
      if (overtakes(score, bestScore)) {
        best = k;
        bestScore = score;
      }
    }
    return best;
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
