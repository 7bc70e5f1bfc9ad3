package io.github.sparkperceptron.internal.calibration;

import java.io.Serializable;
import java.util.Arrays;

/**
 * The map from a model's raw scores to class probabilities (its {@code probabilityCol}): one of
 * the {@link CalibrationMethod}s with its fitted numbers. Immutable; a plain final class of
 * primitive arrays, so that it travels in a transform's broadcast with the scorer.
 *
 * <pre>
 * method    binary (margin m)                           K classes (scores z_1..z_K)
 * none      p1 = 1/(1 + e^{−m})                          p = softmax(z)
 * sigmoid   p1 = 1/(1 + e^{A·m + B})   (PlattScaling)    p = softmax(a·z), a = 1/T  (TemperatureScaling)
 * isotonic  p1 = f(m)                  (IsotonicSteps)   q_k = f_k(z_k), p = q / Σ q (1/K each when Σ q = 0)
 * </pre>
 *
 * A binary model's probability vector is [1 − p1, p1], as Spark's. Scores of ±∞ (a model trained
 * on a single class) are taken as ±{@link Double#MAX_VALUE}; a NaN score (NaN features) gives NaN
 * probabilities.
 */
public final class Calibrator implements Serializable {
  private static final long serialVersionUID = 1L;

  private final CalibrationMethod method;
  private final int numClasses;
  /** sigmoid and none, binary: {A, B}; K classes: {a}. Empty for isotonic. */
  private final double[] parameters;
  /** isotonic: one step function (binary) or one per class; else empty. */
  private final IsotonicSteps[] steps;

  private Calibrator(CalibrationMethod method, int numClasses, double[] parameters,
      IsotonicSteps[] steps) {
    if (numClasses < 2) {
      throw new IllegalArgumentException("a calibrator needs at least 2 classes, got "
          + numClasses);
    }
    this.method = method;
    this.numClasses = numClasses;
    this.parameters = parameters;
    this.steps = steps;
  }

  /** The uncalibrated link: the logistic function (binary) or the softmax (K classes). */
  public static Calibrator none(int numClasses) {
    return new Calibrator(CalibrationMethod.NONE, numClasses,
        numClasses == 2 ? new double[] {-1.0, 0.0} : new double[] {1.0}, new IsotonicSteps[0]);
  }

  /** Platt's sigmoid 1/(1 + e^{A·m + B}) of a binary model's margin. */
  public static Calibrator sigmoid(double a, double b) {
    requireFinite("sigmoid A", a);
    requireFinite("sigmoid B", b);
    return new Calibrator(CalibrationMethod.SIGMOID, 2, new double[] {a, b},
        new IsotonicSteps[0]);
  }

  /** softmax(a·z) of a K-class model's scores, a = 1/T ≥ 0 (a = 0: 1/K each). */
  public static Calibrator temperature(int numClasses, double a) {
    if (numClasses < 3) {
      throw new IllegalArgumentException("temperature scaling is for 3 classes or more; a binary"
          + " model takes Platt's sigmoid");
    }
    if (!(a >= 0) || Double.isInfinite(a)) {
      throw new IllegalArgumentException("the inverse temperature must be finite and >= 0, got "
          + a);
    }
    return new Calibrator(CalibrationMethod.SIGMOID, numClasses, new double[] {a},
        new IsotonicSteps[0]);
  }

  /** Isotonic steps: one for a binary model (of the margin), else one per class (of its score). */
  public static Calibrator isotonic(int numClasses, IsotonicSteps[] steps) {
    if (steps.length != (numClasses == 2 ? 1 : numClasses)) {
      throw new IllegalArgumentException("a " + numClasses + "-class isotonic calibrator needs "
          + (numClasses == 2 ? 1 : numClasses) + " step functions, got " + steps.length);
    }
    return new Calibrator(CalibrationMethod.ISOTONIC, numClasses, new double[0], steps.clone());
  }

  private static void requireFinite(String what, double v) {
    if (!Double.isFinite(v)) {
      throw new IllegalArgumentException(what + " must be finite, got " + v);
    }
  }

  /**
   * Fits {@code method} on {@code sample}'s rows (all of them, in order).
   *
   * @throws IllegalArgumentException when the rows cannot be calibrated: none, a class missing
   *     from a binary sample, a score that is not finite, a bad weight
   */
  public static Calibrator fit(CalibrationMethod method, ScoreSample sample) {
    int k = sample.numClasses();
    if (method == CalibrationMethod.NONE) {
      return none(k);
    }
    int n = sample.size();
    Checks.rows(sample.scoreArray(), sample.labelArray(), sample.weightArray(), n,
        sample.width(), k);
    if (k == 2) {
      requireBothClasses(sample);
      if (method == CalibrationMethod.SIGMOID) {
        double[] ab = PlattScaling.fit(sample.scoreArray(), sample.labelArray(),
            sample.weightArray(), n);
        return sigmoid(ab[0], ab[1]);
      }
      return isotonic(2, new IsotonicSteps[] {IsotonicSteps.fit(sample.scoreArray(),
          sample.labelArray(), sample.weightArray(), n)});
    }
    if (method == CalibrationMethod.SIGMOID) {
      return temperature(k, TemperatureScaling.fit(sample.scoreArray(), sample.labelArray(),
          sample.weightArray(), n, k));
    }
    IsotonicSteps[] perClass = new IsotonicSteps[k];
    double[] column = new double[n];
    int[] isClass = new int[n];
    for (int c = 0; c < k; c++) {
      for (int i = 0; i < n; i++) {
        column[i] = sample.score(i, c);
        isClass[i] = sample.label(i) == c ? 1 : 0;
      }
      perClass[c] = IsotonicSteps.fit(column, isClass, sample.weightArray(), n);
    }
    return isotonic(k, perClass);
  }

  private static void requireBothClasses(ScoreSample sample) {
    double[] classWeight = new double[2];
    for (int i = 0; i < sample.size(); i++) {
      classWeight[sample.label(i)] += sample.weight(i);
    }
    for (int c = 0; c < 2; c++) {
      if (!(classWeight[c] > 0)) {
        throw new IllegalArgumentException("the calibration rows hold no row of class " + c
            + " (with a positive weight), so no map from scores to probabilities can be"
            + " fitted; calibrate on rows of both classes, or set calibration=none");
      }
    }
  }

  public CalibrationMethod method() {
    return method;
  }

  public int numClasses() {
    return numClasses;
  }

  /**
   * The fitted numbers of a sigmoid or of none: {A, B} for a binary model, {a = 1/T} for K
   * classes; empty for isotonic. A copy.
   */
  public double[] parameters() {
    return parameters.clone();
  }

  /** The step functions of an isotonic calibrator (one, or one per class); empty otherwise. */
  public IsotonicSteps[] steps() {
    return steps.clone();
  }

  /** P(class 1) of a binary model at margin {@code m}. */
  public double positiveProbability(double margin) {
    if (numClasses != 2) {
      throw new IllegalStateException("a " + numClasses + "-class calibrator has no margin");
    }
    if (method == CalibrationMethod.ISOTONIC) {
      return steps[0].value(margin);
    }
    return PlattScaling.probability(parameters[0], parameters[1], margin);
  }

  /**
   * The K class probabilities of Spark's raw prediction {@code raw} (binary [−m, m], K scores
   * otherwise) into {@code out}, which may be {@code raw} itself: what the model's
   * {@code probabilityCol} holds. Allocates nothing.
   */
  public void probabilities(double[] raw, double[] out) {
    if (numClasses == 2) {
      double p = positiveProbability(raw[1]);
      out[0] = 1.0 - p;
      out[1] = p;
      return;
    }
    if (method != CalibrationMethod.ISOTONIC) {
      TemperatureScaling.probabilities(parameters[0], raw, 0, numClasses, out);
      return;
    }
    double sum = 0;
    for (int k = 0; k < numClasses; k++) {
      out[k] = steps[k].value(raw[k]);
      sum += out[k];
    }
    for (int k = 0; k < numClasses; k++) {
      // scikit-learn's rule: without any mass, every class 1/K.
      out[k] = sum == 0 ? 1.0 / numClasses : out[k] / sum;
    }
  }

  @Override
  public String toString() {
    return "Calibrator(" + method.paramValue() + ", " + numClasses + " classes"
        + (steps.length > 0 ? ", " + steps[0].size() + " steps" : ", "
        + Arrays.toString(parameters)) + ")";
  }
}
