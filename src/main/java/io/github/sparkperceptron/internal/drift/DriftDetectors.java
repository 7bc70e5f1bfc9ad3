package io.github.sparkperceptron.internal.drift;

import java.util.Locale;

/**
 * The drift detectors by name, with the defaults measured for the stream learner (BENCHMARKS.md,
 * "Drift detection"), and the decoding of a detector's {@link DriftDetector#encode() state}.
 */
public final class DriftDetectors {
  /** The {@code driftDetector} value that turns detection off. */
  public static final String NONE = "none";

  /** Page-Hinkley's default δ: the error increase per row it tolerates. */
  public static final double PAGE_HINKLEY_DELTA = 0.005;
  /**
   * Page-Hinkley's default λ: the smallest of 25, 50, 100, 200 without a false alarm on the
   * measured no-change streams scored row by row (50 alarmed once in 1,000,000 rows).
   */
  public static final double PAGE_HINKLEY_LAMBDA = 100;
  /**
   * Page-Hinkley's default fading factor α: 1, none (MOA's and River's 0.9999 lets noise alone
   * reach λ: it alarmed in most batches of the measured streams).
   */
  public static final double PAGE_HINKLEY_ALPHA = 1.0;
  /** Page-Hinkley's default rows before a run may alarm. */
  public static final long PAGE_HINKLEY_MIN_ROWS = 30;
  /** ADWIN's default δ, the reference implementations' (the shortest measured delays). */
  public static final double ADWIN_DELTA = 0.002;

  private DriftDetectors() {
  }

  /**
   * A detector with the default settings: {@code page-hinkley} or {@code adwin}
   * (case-insensitive); {@code null} for {@code none}.
   *
   * @throws IllegalArgumentException for any other name
   */
  public static DriftDetector create(String name) {
    String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
    switch (n) {
      case NONE:
        return null;
      case PageHinkley.NAME:
        return new PageHinkley(PAGE_HINKLEY_DELTA, PAGE_HINKLEY_LAMBDA, PAGE_HINKLEY_ALPHA,
            PAGE_HINKLEY_MIN_ROWS);
      case Adwin.NAME:
        return new Adwin(ADWIN_DELTA);
      default:
        throw new IllegalArgumentException("driftDetector must be one of none, page-hinkley,"
            + " adwin; got '" + name + "'");
    }
  }

  /**
   * The detector whose {@link DriftDetector#encode()} gave {@code state}: it continues exactly
   * where that one stopped.
   *
   * @throws IllegalArgumentException when {@code state} is not a detector state of a known kind
   *     and format (saying what is wrong)
   */
  public static DriftDetector decode(double[] state) {
    if (state == null || state.length < 2) {
      throw new IllegalArgumentException("Not a drift detector state: "
          + (state == null ? "null" : state.length + " values"));
    }
    if (state[0] == PageHinkley.KIND && state[1] == PageHinkley.FORMAT) {
      return PageHinkley.decode(state);
    }
    if (state[0] == Adwin.KIND && state[1] == Adwin.FORMAT) {
      return Adwin.decode(state);
    }
    throw new IllegalArgumentException("Not a drift detector state this version reads: kind "
        + state[0] + ", format " + state[1] + " (known: 1 = page-hinkley and 2 = adwin, format 1)");
  }

  static void requireLength(double[] s, int length, String name) {
    if (s.length != length) {
      throw new IllegalArgumentException("Not a " + name + " state: " + s.length + " values, it"
          + " has " + length);
    }
  }

  /** {@code s[i]} as a non-negative whole number, or a clear error. */
  static long count(double[] s, int i, String name) {
    double v = s[i];
    if (!(v >= 0 && v <= 0x1p53 && v == Math.rint(v))) {
      throw new IllegalArgumentException("Not a " + name + " state: value " + i + " is " + v
          + ", not a count");
    }
    return (long) v;
  }
}
