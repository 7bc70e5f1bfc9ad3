package io.github.sparkperceptron.internal.drift;

import java.util.Locale;

/**
 * The Page-Hinkley test for an increase of the mean of a sequence, used on a learner's error
 * stream as a drift detector.
 *
 * <pre>
 * Page, "Continuous Inspection Schemes", Biometrika 41(1/2), 1954 (the cumulative-sum test);
 * Gama, Sebastião &amp; Rodrigues, "On evaluating stream learning algorithms", Machine Learning 90,
 *   2013, section 5.1 (Page-Hinkley on the error stream, with a fading factor α);
 * the statistics of River's drift.PageHinkley (minimum instances); MOA's released PageHinkleyDM
 *   (2024.07.0) alarms on m_T alone, without the running minimum M_T (DriftDetectorOracleTest).
 *
 * after row T of the current run (x_t ∈ [0, 1] the rows' errors):
 *   x̄_T = (1/T) Σ_{t≤T} x_t                        running mean
 *   m_T = α·m_{T−1} + (x_T − x̄_T − δ)               cumulative deviation, m_0 = 0
 *   M_T = min_{1≤t≤T} m_t
 *   drift when T ≥ minRows and m_T − M_T &gt; λ; then the run restarts (T = 0, m = 0)
 * </pre>
 *
 * <p>δ is the increase of the error rate the test tolerates per row; λ the evidence (in rows ×
 * error) it needs. With α = 1, a jump of the error rate by Δ &gt; δ is detected after about
 * λ / (Δ − δ) rows (each row adds Δ − δ to m_T in expectation once x̄ has settled); a stationary
 * or falling error rate drifts m_T down by at least δ per row, so false alarms need a run of bad
 * luck worth λ. α &lt; 1 forgets old deviations (Gama et al.'s fading factor), which bounds how
 * far m_T can fall but lets noise alone reach λ on a long stationary stream.
 *
 * <p>Cost: O(1) time per row, no allocation; the state is eight numbers.
 */
public final class PageHinkley implements DriftDetector {
  /** The detector's name and its code in {@link #encode()}. */
  public static final String NAME = "page-hinkley";
  static final double KIND = 1;
  static final double FORMAT = 1;
  static final int ENCODED_LENGTH = 13;

  private final double delta;
  private final double lambda;
  private final double alpha;
  private final long minRows;

  /** Rows of the current run (since the start or the last detection). */
  private long runRows;
  private double mean;
  private double cumulative;
  private double minimum = Double.POSITIVE_INFINITY;
  private long rows;
  private long detections;
  private long lastDetectionRow = -1;

  /**
   * @param delta δ ≥ 0, the tolerated increase per row
   * @param lambda λ &gt; 0, the alarm threshold on m_T − M_T
   * @param alpha α in (0, 1], the fading factor (1: none)
   * @param minRows rows a run must have before it may alarm (≥ 1)
   */
  public PageHinkley(double delta, double lambda, double alpha, long minRows) {
    if (!(delta >= 0 && delta < Double.POSITIVE_INFINITY)) {
      throw new IllegalArgumentException("Page-Hinkley's delta must be finite and >= 0, got "
          + delta);
    }
    if (!(lambda > 0 && lambda < Double.POSITIVE_INFINITY)) {
      throw new IllegalArgumentException("Page-Hinkley's lambda must be finite and > 0, got "
          + lambda);
    }
    if (!(alpha > 0 && alpha <= 1)) {
      throw new IllegalArgumentException("Page-Hinkley's alpha (fading factor) must be in (0, 1],"
          + " got " + alpha);
    }
    if (minRows < 1) {
      throw new IllegalArgumentException("Page-Hinkley's minRows must be >= 1, got " + minRows);
    }
    this.delta = delta;
    this.lambda = lambda;
    this.alpha = alpha;
    this.minRows = minRows;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean add(double error) {
    if (!(error >= 0 && error <= 1)) {
      throw new IllegalArgumentException("A row's error must be in [0, 1], got " + error);
    }
    long row = rows++;
    runRows++;
    mean += (error - mean) / runRows;
    cumulative = alpha * cumulative + (error - mean - delta);
    if (cumulative < minimum) {
      minimum = cumulative;
    }
    if (runRows >= minRows && cumulative - minimum > lambda) {
      detections++;
      lastDetectionRow = row;
      runRows = 0;
      mean = 0.0;
      cumulative = 0.0;
      minimum = Double.POSITIVE_INFINITY;
      return true;
    }
    return false;
  }

  @Override
  public long rows() {
    return rows;
  }

  @Override
  public long detections() {
    return detections;
  }

  @Override
  public long lastDetectionRow() {
    return lastDetectionRow;
  }

  /** The mean error of the current run (since the start or the last detection). */
  @Override
  public double errorRate() {
    return mean;
  }

  /** m_T − M_T, the statistic compared with λ (0 at the start of a run). */
  public double statistic() {
    return runRows == 0 ? 0.0 : cumulative - minimum;
  }

  public double delta() {
    return delta;
  }

  public double lambda() {
    return lambda;
  }

  public double alpha() {
    return alpha;
  }

  public long minRows() {
    return minRows;
  }

  /**
   * {@code [kind=1, format=1, δ, λ, α, minRows, runRows, x̄, m, M, rows, detections,
   * lastDetectionRow]}.
   */
  @Override
  public double[] encode() {
    return new double[] {KIND, FORMAT, delta, lambda, alpha, minRows, runRows, mean, cumulative,
        minimum, rows, detections, lastDetectionRow};
  }

  static PageHinkley decode(double[] s) {
    DriftDetectors.requireLength(s, ENCODED_LENGTH, NAME);
    PageHinkley d = new PageHinkley(s[2], s[3], s[4], DriftDetectors.count(s, 5, NAME));
    d.runRows = DriftDetectors.count(s, 6, NAME);
    d.mean = s[7];
    d.cumulative = s[8];
    d.minimum = s[9];
    d.rows = DriftDetectors.count(s, 10, NAME);
    d.detections = DriftDetectors.count(s, 11, NAME);
    d.lastDetectionRow = (long) s[12];
    if (d.runRows > d.rows || d.detections > d.rows || d.lastDetectionRow >= d.rows
        || d.lastDetectionRow < -1) {
      throw new IllegalArgumentException("Not a Page-Hinkley state: its counters are inconsistent");
    }
    return d;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "page-hinkley(delta=%s, lambda=%s, alpha=%s, minRows=%d)",
        delta, lambda, alpha, minRows);
  }
}
