package io.github.sparkperceptron.internal.evaluation;

import java.io.Serializable;

/**
 * How good a classifier's probabilities are, accumulated row by row (a worker's rows, then the
 * workers' parts merged in worker order): log-loss, the Brier score and the expected calibration
 * error, with the reliability diagram's bins behind the last.
 *
 * <pre>
 * log-loss  −Σ w·log p_y / Σ w, p_y clipped to [1e-15, 1 − 1e-15] (the ε of Spark's
 *           MulticlassClassificationEvaluator "logLoss" and of scikit-learn 1.2's log_loss)
 * Brier     Σ w·(p_1 − y)² / Σ w for a binary model (Brier 1950 for one class, scikit-learn's
 *           brier_score_loss); Σ w·Σ_k (p_k − [y = k])² / Σ w for K classes (Brier's
 *           multi-category score)
 * ECE       Σ_b (W_b / W)·|acc_b − conf_b| over M = 15 equal-width bins of the confidence
 *           max_k p_k, acc_b the share of rows in bin b whose arg-max class is right and conf_b
 *           their mean confidence (Guo, Pleiss, Sun &amp; Weinberger, ICML 2017, eq. 3; Naeini et
 *           al. 2015); bin b holds confidences in (b/M, (b+1)/M], the first also 0
 * </pre>
 *
 * The arg-max of the probabilities takes ties to the lowest class, as Spark's. Rows whose
 * probabilities hold a NaN are counted in {@link #nanRows()} and left out of every metric.
 */
public final class ProbabilityMetrics implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Bins of the expected calibration error and the reliability diagram. */
  public static final int BINS = 15;
  /** The clip of log-loss. */
  public static final double EPSILON = 1e-15;

  private final int numClasses;
  private double weight;
  private double logLoss;
  private double brier;
  private long rows;
  private long nanRows;
  private final double[] binWeight = new double[BINS];
  private final double[] binConfidence = new double[BINS];
  private final double[] binCorrect = new double[BINS];

  public ProbabilityMetrics(int numClasses) {
    this.numClasses = numClasses;
  }

  /** Adds a row: its K probabilities, its class and its weight. */
  public void add(double[] probabilities, int label, double w) {
    int best = 0;
    double squares = 0;
    for (int k = 0; k < numClasses; k++) {
      double p = probabilities[k];
      if (Double.isNaN(p)) {
        nanRows++;
        return;
      }
      if (p > probabilities[best]) {
        best = k;
      }
      double o = k == label ? 1.0 : 0.0;
      squares += (p - o) * (p - o);
    }
    double py = Math.min(Math.max(probabilities[label], EPSILON), 1.0 - EPSILON);
    double confidence = probabilities[best];
    rows++;
    weight += w;
    logLoss -= w * Math.log(py);
    // Binary: one class's square, (p1 − y)², which is half the two classes' sum.
    brier += w * (numClasses == 2 ? squares / 2 : squares);
    int bin = Math.min(BINS - 1, Math.max(0, (int) Math.ceil(confidence * BINS) - 1));
    binWeight[bin] += w;
    binConfidence[bin] += w * confidence;
    binCorrect[bin] += best == label ? w : 0.0;
  }

  /** Adds {@code other}'s rows to these (merge the parts in a fixed order for the same bits). */
  public ProbabilityMetrics merge(ProbabilityMetrics other) {
    if (other.numClasses != numClasses) {
      throw new IllegalArgumentException("metrics of " + other.numClasses + " classes merged into "
          + numClasses);
    }
    weight += other.weight;
    logLoss += other.logLoss;
    brier += other.brier;
    rows += other.rows;
    nanRows += other.nanRows;
    for (int b = 0; b < BINS; b++) {
      binWeight[b] += other.binWeight[b];
      binConfidence[b] += other.binConfidence[b];
      binCorrect[b] += other.binCorrect[b];
    }
    return this;
  }

  public int numClasses() {
    return numClasses;
  }

  /** Rows counted (NaN rows excluded). */
  public long rows() {
    return rows;
  }

  /** Rows left out because a probability was NaN. */
  public long nanRows() {
    return nanRows;
  }

  /** Mean log-loss; NaN without rows. */
  public double logLoss() {
    return weight > 0 ? logLoss / weight : Double.NaN;
  }

  /** Mean Brier score; NaN without rows. */
  public double brier() {
    return weight > 0 ? brier / weight : Double.NaN;
  }

  /** Expected calibration error; NaN without rows. */
  public double expectedCalibrationError() {
    if (!(weight > 0)) {
      return Double.NaN;
    }
    double ece = 0;
    for (int b = 0; b < BINS; b++) {
      if (binWeight[b] > 0) {
        ece += Math.abs(binCorrect[b] - binConfidence[b]) / weight;
      }
    }
    return ece;
  }

  /** The weight of the rows whose confidence fell in each bin. */
  public double[] binWeights() {
    return binWeight.clone();
  }

  /** Each bin's mean confidence (NaN for an empty bin). */
  public double[] binConfidences() {
    double[] out = new double[BINS];
    for (int b = 0; b < BINS; b++) {
      out[b] = binWeight[b] > 0 ? binConfidence[b] / binWeight[b] : Double.NaN;
    }
    return out;
  }

  /** Each bin's accuracy: the weighted share of its rows whose arg-max is right (NaN if empty). */
  public double[] binAccuracies() {
    double[] out = new double[BINS];
    for (int b = 0; b < BINS; b++) {
      out[b] = binWeight[b] > 0 ? binCorrect[b] / binWeight[b] : Double.NaN;
    }
    return out;
  }
}
