package io.github.sparkperceptron.internal.kernel;

import java.io.Serializable;
import java.util.Objects;

/**
 * The immutable settings a worker's learner needs, built once on the driver from the
 * estimator's params, so that Spark closures capture this small object and never the estimator.
 */
public final class LearnerConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int numFeatures;
  private final int numClasses;
  private final boolean fitIntercept;
  private final double stepSize;
  private final UpdateRule updateRule;
  private final double aggressiveness;
  private final Averaging averaging;
  private final double[] classWeights;
  private final StateLayout layout;

  public LearnerConfig(int numFeatures, int numClasses, boolean fitIntercept, double stepSize,
      UpdateRule updateRule, double aggressiveness, Averaging averaging) {
    this(numFeatures, numClasses, fitIntercept, stepSize, updateRule, aggressiveness, averaging,
        null);
  }

  /**
   * @param classWeights a factor per class that multiplies every example's sample weight, or
   *     {@code null} for none
   */
  public LearnerConfig(int numFeatures, int numClasses, boolean fitIntercept, double stepSize,
      UpdateRule updateRule, double aggressiveness, Averaging averaging, double[] classWeights) {
    if (numFeatures < 0) {
      throw new IllegalArgumentException("numFeatures must be >= 0, got " + numFeatures);
    }
    if (numClasses < 2) {
      throw new IllegalArgumentException("numClasses must be >= 2, got " + numClasses);
    }
    if (!(stepSize > 0) || Double.isInfinite(stepSize)) {
      throw new IllegalArgumentException("stepSize must be finite and > 0, got " + stepSize);
    }
    if (!(aggressiveness > 0) || Double.isInfinite(aggressiveness)) {
      throw new IllegalArgumentException("aggressiveness must be finite and > 0, got "
          + aggressiveness);
    }
    if ((long) weightRows(numClasses) * (numFeatures + 1L) > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(numClasses + " classes x " + numFeatures
          + " features do not fit one Java array of weights");
    }
    this.numFeatures = numFeatures;
    this.numClasses = numClasses;
    this.fitIntercept = fitIntercept;
    this.stepSize = stepSize;
    this.updateRule = updateRule;
    this.aggressiveness = aggressiveness;
    this.averaging = averaging;
    if (classWeights != null) {
      if (classWeights.length != numClasses) {
        throw new IllegalArgumentException(classWeights.length + " class weights for "
            + numClasses + " classes");
      }
      for (double w : classWeights) {
        if (!(w >= 0) || Double.isInfinite(w)) {
          throw new IllegalArgumentException("class weights must be finite and >= 0, got " + w);
        }
      }
    }
    this.classWeights = classWeights == null ? null : classWeights.clone();
    this.layout = StateLayout.CLASS_MAJOR;
  }

  private LearnerConfig(LearnerConfig base, int numFeatures, StateLayout layout) {
    if (numFeatures < 0) {
      throw new IllegalArgumentException("numFeatures must be >= 0, got " + numFeatures);
    }
    if ((long) base.weightRows() * (numFeatures + 1L) > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(base.numClasses + " classes x " + numFeatures
          + " features do not fit one Java array of weights");
    }
    this.numFeatures = numFeatures;
    this.numClasses = base.numClasses;
    this.fitIntercept = base.fitIntercept;
    this.stepSize = base.stepSize;
    this.updateRule = base.updateRule;
    this.aggressiveness = base.aggressiveness;
    this.averaging = base.averaging;
    this.classWeights = base.classWeights;
    this.layout = layout;
  }

  /**
   * These settings over a state laid out as {@code layout} (the kernel reads the weights in that
   * order; every margin, update and model stays bit for bit what the class-major layout gives).
   */
  public LearnerConfig withLayout(StateLayout layout) {
    return new LearnerConfig(this, numFeatures, Objects.requireNonNull(layout));
  }

  /**
   * These settings over {@code numFeatures} features: a worker's own feature numbers
   * ({@link LocalFeatures}), whose state has a bias slot after its {@code numFeatures} features.
   */
  public LearnerConfig withNumFeatures(int numFeatures) {
    return new LearnerConfig(this, numFeatures, layout);
  }

  private static int weightRows(int numClasses) {
    return numClasses == 2 ? 1 : numClasses;
  }

  public int numFeatures() {
    return numFeatures;
  }

  public int numClasses() {
    return numClasses;
  }

  /** K': one weight row for a binary model, K for a multiclass one. */
  public int weightRows() {
    return weightRows(numClasses);
  }

  /** How the state's K'·(d+1) weights are ordered ({@link StateLayout#CLASS_MAJOR} unless set). */
  public StateLayout layout() {
    return layout;
  }

  /** Whether the kernel scores all classes of a feature at once (multiclass, feature-major). */
  public boolean isFeatureMajor() {
    return layout == StateLayout.FEATURE_MAJOR && !isBinary();
  }

  /** The position of weight row {@code row}'s coefficient of {@code feature} (d: the bias). */
  public int stateIndex(int row, int feature) {
    return layout.index(row, feature, numFeatures, weightRows());
  }

  /** d + 1: a weight row with its bias slot. */
  public int rowLength() {
    return numFeatures + 1;
  }

  /** K' · (d + 1): the length of the flat weight array. */
  public int stateLength() {
    return weightRows() * rowLength();
  }

  public boolean isBinary() {
    return numClasses == 2;
  }

  public boolean fitIntercept() {
    return fitIntercept;
  }

  public double stepSize() {
    return stepSize;
  }

  public UpdateRule updateRule() {
    return updateRule;
  }

  public double aggressiveness() {
    return aggressiveness;
  }

  public Averaging averaging() {
    return averaging;
  }

  /** The per-class factors on the sample weights, or {@code null}; not a copy. */
  public double[] classWeights() {
    return classWeights;
  }

  /** The effective weight of an example: its sample weight times its class's weight. */
  public double exampleWeight(double sampleWeight, int label) {
    return classWeights == null ? sampleWeight : sampleWeight * classWeights[label];
  }
}
