package io.github.sparkperceptron.internal.kernel;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The voted perceptron's prediction rule (Freund &amp; Schapire, "Large Margin Classification
 * Using the Perceptron Algorithm", Machine Learning 37, 1999):
 * <pre>
 *   binary:      v(x) = Σ_k c_k · sign(w_k·x + b_k),   predict 1 when v(x) &gt; threshold
 *   multiclass:  v_y(x) = Σ_k c_k · [argmax_j (w_k,j·x + b_k,j) = y],   predict argmax_y v_y(x)
 * </pre>
 * over every intermediate weight vector w_k, where c_k is how many examples w_k survived (sign(0)
 * counts as −1 and arg-max ties go to the lowest class, as in training).
 *
 * <p>Under parameter mixing the vote ranges over every worker's own sequence of intermediate
 * vectors in every epoch: worker i's epoch n starts from the mixed vector w̄⁽ⁿ⁾ and each vector
 * it passes through votes with weight μ_i,n · c (c measured on the worker's clock, which spans
 * the same T per epoch on every worker). With one worker μ = 1, the clock counts examples
 * and this is exactly Freund &amp; Schapire's voted perceptron.
 *
 * <p>Storage: the E start vectors (K'·(d+1) doubles each, one per epoch) and the updates
 * (12 bytes per non-zero of each update's row + 28 bytes per update). Prediction of x costs
 * O(E·P·K'·nnz(x) + Σ_updates (nnz(row) + nnz(x))): each segment's start vector is dotted with x
 * once and every update moves the scores by δ·(x_update·x), a sparse merge.
 */
public final class VotedPerceptron implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int numClasses;
  private final int numFeatures;
  /** 1 when updates moved the bias (fitIntercept), else 0. */
  private final double biasValue;
  private final double[][] startVectors;
  /** Per segment: its start vector, the vote weight of that vector, and its updates' range. */
  private final int[] segmentStart;
  private final double[] segmentStartWeight;
  private final int[] segmentFirstUpdate;
  /** Per update: row (CSR), rows moved, step, vote weight of the vector it produced. */
  private final int[] rowStart;
  private final int[] indices;
  private final double[] values;
  private final int[] raised;
  private final int[] lowered;
  private final double[] delta;
  private final double[] weight;

  /** Assembles a vote from its arrays (as stored); see the Builder for their meaning. */
  public VotedPerceptron(int numClasses, int numFeatures, boolean fitIntercept,
      double[][] startVectors,
      int[] segmentStart, double[] segmentStartWeight, int[] segmentFirstUpdate, int[] rowStart,
      int[] indices, double[] values, int[] raised, int[] lowered, double[] delta,
      double[] weight) {
    this.numClasses = numClasses;
    this.numFeatures = numFeatures;
    this.biasValue = fitIntercept ? 1.0 : 0.0;
    this.startVectors = startVectors;
    this.segmentStart = segmentStart;
    this.segmentStartWeight = segmentStartWeight;
    this.segmentFirstUpdate = segmentFirstUpdate;
    this.rowStart = rowStart;
    this.indices = indices;
    this.values = values;
    this.raised = raised;
    this.lowered = lowered;
    this.delta = delta;
    this.weight = weight;
    int updates = raised.length;
    if (segmentFirstUpdate.length != segmentStart.length + 1
        || segmentFirstUpdate[segmentStart.length] != updates || rowStart.length != updates + 1
        || lowered.length != updates || delta.length != updates || weight.length != updates
        || segmentStartWeight.length != segmentStart.length) {
      throw new IllegalArgumentException("inconsistent vote arrays");
    }
    requireInRange(numClasses, numFeatures);
  }

  /**
   * Checks what prediction indexes with, so that arrays read from files fail here, with a
   * message, rather than deep inside a Spark task: start vectors of the model's length, segments
   * and rows that stay inside their arrays, feature indices below d, weight rows below K'.
   */
  private void requireInRange(int numClasses, int numFeatures) {
    int rows = numClasses == 2 ? 1 : numClasses;
    long stateLength = (long) rows * (numFeatures + 1L);
    for (double[] start : startVectors) {
      if (start == null || start.length != stateLength) {
        throw new IllegalArgumentException("vote start vector of length "
            + (start == null ? 0 : start.length) + ", the model's weights have " + stateLength);
      }
    }
    if (segmentFirstUpdate.length > 0 && segmentFirstUpdate[0] != 0 || rowStart[0] != 0
        || rowStart[rowStart.length - 1] != indices.length || values.length != indices.length) {
      throw new IllegalArgumentException("inconsistent vote arrays");
    }
    for (int s = 0; s < segmentStart.length; s++) {
      if (segmentStart[s] < 0 || segmentStart[s] >= startVectors.length
          || segmentFirstUpdate[s + 1] < segmentFirstUpdate[s]) {
        throw new IllegalArgumentException("vote segment " + s + " is inconsistent");
      }
    }
    for (int u = 0; u < raised.length; u++) {
      boolean rowsOk = rows == 1 ? raised[u] == 0
          : raised[u] >= 0 && raised[u] < rows && lowered[u] >= 0 && lowered[u] < rows;
      if (!rowsOk || rowStart[u + 1] < rowStart[u]) {
        throw new IllegalArgumentException("vote update " + u + " is inconsistent");
      }
    }
    for (int index : indices) {
      if (index < 0 || index >= numFeatures) {
        throw new IllegalArgumentException("vote holds feature index " + index
            + " of a model with " + numFeatures + " features");
      }
    }
  }

  /**
   * The largest vote (in bytes) training could produce: every example an update in every epoch.
   * Checked against the driver's memory before training.
   */
  public static long worstCaseBytes(int epochs, long rows, long storedValues, int stateLength) {
    return (long) epochs * (8L * stateLength + 12L * storedValues + 40L * rows);
  }

  public int numClasses() {
    return numClasses;
  }

  public int numFeatures() {
    return numFeatures;
  }

  public int numSegments() {
    return segmentStart.length;
  }

  /**
   * The vote for one input given as sorted sparse entries (the first {@code nnz} of
   * {@code xIndices}/{@code xValues}). Binary: one number v(x); multiclass: K vote totals.
   */
  public double[] votes(int[] xIndices, double[] xValues, int nnz) {
    int rows = numClasses == 2 ? 1 : numClasses;
    int rowLength = numFeatures + 1;
    double[] scores = new double[rows];
    double[] out = new double[numClasses == 2 ? 1 : numClasses];
    for (int s = 0; s < segmentStart.length; s++) {
      double[] w = startVectors[segmentStart[s]];
      for (int k = 0; k < rows; k++) {
        double m = 0.0;
        for (int t = 0; t < nnz; t++) {
          m += xValues[t] * w[k * rowLength + xIndices[t]];
        }
        scores[k] = m + w[k * rowLength + numFeatures];
      }
      cast(scores, segmentStartWeight[s], out);
      for (int u = segmentFirstUpdate[s]; u < segmentFirstUpdate[s + 1]; u++) {
        // The update moved w by δ·x_u and the bias by δ·biasValue.
        double p = sparseDot(u, xIndices, xValues, nnz) + biasValue;
        if (rows == 1) {
          scores[0] += delta[u] * p;
        } else {
          scores[raised[u]] += delta[u] * p;
          scores[lowered[u]] -= delta[u] * p;
        }
        cast(scores, weight[u], out);
      }
    }
    return out;
  }

  private static void cast(double[] scores, double voteWeight, double[] out) {
    if (voteWeight == 0.0) {
      return;
    }
    if (scores.length == 1) {
      // sign(w·x + b) with sign(0) = −1: the binary rule at threshold 0
      out[0] += Predictor.binaryClass(scores[0], 0.0) == 1 ? voteWeight : -voteWeight;
      return;
    }
    out[Predictor.argmax(scores)] += voteWeight;
  }

  private double sparseDot(int u, int[] xIndices, double[] xValues, int nnz) {
    int a = rowStart[u];
    int aEnd = rowStart[u + 1];
    int b = 0;
    double sum = 0.0;
    while (a < aEnd && b < nnz) {
      int ia = indices[a];
      int ib = xIndices[b];
      if (ia == ib) {
        sum += values[a] * xValues[b];
        a++;
        b++;
      } else if (ia < ib) {
        a++;
      } else {
        b++;
      }
    }
    return sum;
  }

  /** The stored arrays, for persistence. */
  public double[][] startVectors() {
    return startVectors;
  }

  public int[] segmentStartVectors() {
    return segmentStart;
  }

  public double[] segmentStartWeights() {
    return segmentStartWeight;
  }

  public int[] segmentFirstUpdates() {
    return segmentFirstUpdate;
  }

  public int[] updateRowStarts() {
    return rowStart;
  }

  public int[] updateIndices() {
    return indices;
  }

  public double[] updateValues() {
    return values;
  }

  public int[] updateRaised() {
    return raised;
  }

  public int[] updateLowered() {
    return lowered;
  }

  public double[] updateDeltas() {
    return delta;
  }

  public double[] updateWeights() {
    return weight;
  }

  public boolean fitIntercept() {
    return biasValue != 0.0;
  }

  /**
   * Collects start vectors and the workers' traces epoch by epoch, and assembles the vote,
   * optionally only up to some epoch (early stopping keeps the best epoch's vote).
   */
  public static final class Builder implements Serializable {
    private static final long serialVersionUID = 1L;
    private final int numClasses;
    private final int numFeatures;
    private final boolean fitIntercept;
    private final List<double[]> starts = new ArrayList<>();
    private final List<VoteTrace> traces = new ArrayList<>();
    private final List<Double> mu = new ArrayList<>();
    private final List<Integer> epochs = new ArrayList<>();

    public Builder(int numClasses, int numFeatures, boolean fitIntercept) {
      this.numClasses = numClasses;
      this.numFeatures = numFeatures;
      this.fitIntercept = fitIntercept;
    }

    /** Stores a copy of a start vector; returns its index. */
    public int addStartVector(double[] weights) {
      starts.add(weights.clone());
      return starts.size() - 1;
    }

    /**
     * Adds the traces one epoch produced (one per worker, or per worker over all epochs
     * for one-shot mixing), each weighted by its μ_i = mixWeight_i / Σ_j mixWeight_j; when every
     * mixing weight is zero (no worker updated), by 1 / #traces.
     */
    public void addEpoch(int epoch, List<VoteTrace> epochTraces) {
      double total = 0;
      for (VoteTrace t : epochTraces) {
        total += t.mixWeight();
      }
      for (VoteTrace t : epochTraces) {
        traces.add(t);
        mu.add(total > 0 ? t.mixWeight() / total : 1.0 / epochTraces.size());
        epochs.add(epoch);
      }
    }

    /**
     * A builder holding what a checkpoint stored: the start vectors, and per trace its epoch and
     * its normalised mixing share μ. The arrays and traces are taken, not copied.
     *
     * @throws IllegalArgumentException if they do not fit together or the model's shape: a start
     *     vector of another length, a trace naming a start vector that does not exist, a feature
     *     index or weight row out of range
     */
    public static Builder restore(int numClasses, int numFeatures, boolean fitIntercept,
        List<double[]> startVectors, List<VoteTrace> traces, double[] shares, int[] epochs) {
      int rows = numClasses == 2 ? 1 : numClasses;
      long stateLength = (long) rows * (numFeatures + 1L);
      if (shares.length != traces.size() || epochs.length != traces.size()) {
        throw new IllegalArgumentException("vote: " + traces.size() + " traces, "
            + shares.length + " shares, " + epochs.length + " epochs");
      }
      Builder b = new Builder(numClasses, numFeatures, fitIntercept);
      for (double[] start : startVectors) {
        if (start.length != stateLength) {
          throw new IllegalArgumentException("vote: a start vector of length " + start.length
              + ", the model's state has " + stateLength);
        }
        b.starts.add(start);
      }
      for (int s = 0; s < traces.size(); s++) {
        VoteTrace t = traces.get(s);
        if (t.startVector() >= startVectors.size()) {
          throw new IllegalArgumentException("vote: trace " + s + " starts from vector "
              + t.startVector() + " of " + startVectors.size());
        }
        for (int j = 0; j < t.updates(); j++) {
          boolean binary = rows == 1;
          if (binary ? t.raised(j) != 0 || t.lowered(j) != -1
              : t.raised(j) < 0 || t.raised(j) >= rows || t.lowered(j) < 0
                  || t.lowered(j) >= rows) {
            throw new IllegalArgumentException("vote: trace " + s + ", update " + j
                + " moves weight rows " + t.raised(j) + " and " + t.lowered(j));
          }
        }
        for (long k = 0; k < t.storedValues(); k++) {
          int index = t.index((int) k);
          if (index < 0 || index >= numFeatures) {
            throw new IllegalArgumentException("vote: trace " + s + " holds feature index "
                + index + " of a model with " + numFeatures + " features");
          }
        }
        if (!(shares[s] >= 0)) {
          throw new IllegalArgumentException("vote: trace " + s + " has share " + shares[s]);
        }
        b.traces.add(t);
        b.mu.add(shares[s]);
        b.epochs.add(epochs[s]);
      }
      return b;
    }

    public int numClasses() {
      return numClasses;
    }

    public int numFeatures() {
      return numFeatures;
    }

    public boolean fitIntercept() {
      return fitIntercept;
    }

    /** The start vectors so far, in order (read-only view; persistence). */
    public List<double[]> startVectors() {
      return Collections.unmodifiableList(starts);
    }

    /** The traces so far, in order (read-only view; persistence). */
    public List<VoteTrace> traces() {
      return Collections.unmodifiableList(traces);
    }

    /** Trace s's normalised mixing share μ. */
    public double share(int s) {
      return mu.get(s);
    }

    /** The epoch trace s belongs to. */
    public int epochOf(int s) {
      return epochs.get(s);
    }

    /** The vote over the segments of epochs ≤ {@code lastEpoch}. */
    public VotedPerceptron build(int lastEpoch) {
      int segments = 0;
      int updates = 0;
      long stored = 0;
      for (int s = 0; s < traces.size(); s++) {
        if (epochs.get(s) <= lastEpoch) {
          segments++;
          updates += traces.get(s).updates();
          stored += traces.get(s).storedValues();
        }
      }
      if (stored > Integer.MAX_VALUE - 8) {
        throw new IllegalStateException("the vote holds " + stored + " non-zeros, more than one"
            + " Java array can; use averaging=average");
      }
      int[] segStart = new int[segments];
      double[] segWeight = new double[segments];
      int[] segFirst = new int[segments + 1];
      int[] rowStart = new int[updates + 1];
      int[] idx = new int[(int) stored];
      double[] val = new double[(int) stored];
      int[] up = new int[updates];
      int[] down = new int[updates];
      double[] step = new double[updates];
      double[] w = new double[updates];
      int seg = 0;
      int u = 0;
      int nz = 0;
      for (int s = 0; s < traces.size(); s++) {
        if (epochs.get(s) > lastEpoch) {
          continue;
        }
        VoteTrace t = traces.get(s);
        double m = mu.get(s);
        segStart[seg] = t.startVector();
        segWeight[seg] = m * t.startSurvival();
        segFirst[seg] = u;
        for (int j = 0; j < t.updates(); j++) {
          for (int k = t.rowStart(j); k < t.rowStart(j + 1); k++) {
            idx[nz] = t.index(k);
            val[nz] = t.value(k);
            nz++;
          }
          rowStart[u + 1] = nz;
          up[u] = t.raised(j);
          down[u] = t.lowered(j);
          step[u] = t.delta(j);
          w[u] = m * t.survival(j);
          u++;
        }
        seg++;
      }
      segFirst[segments] = u;
      return new VotedPerceptron(numClasses, numFeatures, fitIntercept,
          starts.toArray(new double[0][]), segStart, segWeight, segFirst, rowStart, idx, val, up,
          down, step, w);
    }
  }
}
