package io.github.sparkperceptron.kernel;

/**
 * Predictions of a linear model (the kernel's weight layout) or a vote on a block's rows, for
 * scoring held-out rows during training. Same conventions as training and as the Spark model:
 * binary predicts 1 when the margin exceeds the threshold, multiclass takes the arg-max with
 * ties to the lowest class.
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
   * The predicted class of a block row. The buffers (at least d long, used only by votes) belong
   * to the caller, so that one predictor can be shared by concurrent tasks.
   */
  public int predict(FeatureBlock x, int row, int[] rowIndices, double[] rowValues) {
    if (vote != null) {
      int nnz = x.copyRow(row, rowIndices, rowValues);
      double[] votes = vote.votes(rowIndices, rowValues, nnz);
      return numClasses == 2 ? (votes[0] > threshold ? 1 : 0) : argmax(votes);
    }
    int rowLength = numFeatures + 1;
    if (numClasses == 2) {
      return x.dot(row, weights, 0) + weights[numFeatures] > threshold ? 1 : 0;
    }
    int best = 0;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (int k = 0; k < numClasses; k++) {
      double score = x.dot(row, weights, k * rowLength) + weights[k * rowLength + numFeatures];
      if (k == 0 || score > bestScore) {
        best = k;
        bestScore = score;
      }
    }
    return best;
  }

  private static int argmax(double[] v) {
    int best = 0;
    for (int k = 1; k < v.length; k++) {
      if (v[k] > v[best]) {
        best = k;
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
