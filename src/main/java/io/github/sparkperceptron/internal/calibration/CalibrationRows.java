package io.github.sparkperceptron.internal.calibration;

import io.github.sparkperceptron.internal.kernel.SeededShuffle;
import java.io.Serializable;
import java.util.Locale;

/**
 * Which rows of a training are calibration rows, rows the perceptron does not train on: none, a
 * held-out share, or one fold of k (cross-fitting). Decided where each row is converted, by a
 * seeded hash of the row itself (its class and its non-zero features), so that the same row and
 * seed go the same way whatever the partitioning, the workers or the input's format (dense,
 * sparse, text), and identical rows always go together (a duplicate of a calibration row is never
 * trained on).
 *
 * <pre>
 * Platt (1999)                          fit the sigmoid on scores of rows the model did not
 *                                       train on: a hold-out set or cross-validation
 * Niculescu-Mizil &amp; Caruana (2005)       calibration on a held-out set; a few hundred rows
 *                                       already fit Platt's two parameters well
 * Steele, Lea &amp; Flood (2014)            SplitMix64's mixing function (SeededShuffle.mix64)
 * </pre>
 *
 * <p>The hash of a row of class c with non-zero values v_j at indices j, for seed s:
 * <pre>
 * key  = mix64(s ^ SALT)
 * e_j  = mix64((key + G·(j + 1)) ^ bits(v_j))           one per non-zero value, any order
 * h    = mix64(mix64(key ^ G·(c + 1)) + Σ_j e_j)        sums mod 2^64
 * u    = (h &gt;&gt;&gt; 11) · 2^−53                             uniform in [0, 1)
 * </pre>
 * (G = 0x9E3779B97F4A7C15, SALT = 0x6A09E667F3BCC909, bits = Double.doubleToLongBits). A held-out
 * share f takes the rows with u &lt; f; fold i of k is the rows with ⌊u·k⌋ = i. Zeros, explicit or
 * not, do not enter the hash, so a dense row and its sparse form hash alike. Cost: one mix per
 * non-zero value, once, at conversion.
 *
 * <p>The default (calibration on, no validation rows, no folds asked for) holds out
 * {@value #HELD_OUT_PERCENT}% of the rows; where those hold fewer than
 * {@value #MIN_ROWS_PER_CLASS} rows of some class ({@link #shortfall}; {@value
 * #MIN_ROWS_PER_CLASS_LARGE} from {@value #LARGE_DATA_ROWS} rows on, where the fallback would
 * cost several fits of large data), the training takes every row and the calibrator is
 * cross-fitted on {@value #FALLBACK_FOLDS} folds instead (BENCHMARKS.md, issue 33, measures
 * both). Plain final class of primitives: it travels in the
 * conversion's closure.
 */
public final class CalibrationRows implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The share of the rows the default holds out, in percent. */
  public static final int HELD_OUT_PERCENT = 10;
  /** The share of the rows the default holds out. */
  public static final double HELD_OUT_SHARE = HELD_OUT_PERCENT / 100.0;
  /**
   * The fewest held-out rows of each class the default calibrates on (with a positive weight);
   * below, it cross-fits. Platt's two parameters and a temperature are well determined by tens
   * of rows a class; at {@value #HELD_OUT_PERCENT}% this asks for about 500 rows of the smallest
   * class, where cross-fitting costs little (BENCHMARKS.md, issue 33).
   */
  public static final int MIN_ROWS_PER_CLASS = 50;
  /**
   * From this many rows on (training and held out), the default calibrates on the held-out rows
   * when every class has at least {@value #MIN_ROWS_PER_CLASS_LARGE} of them: there the fallback
   * would convert the data again and train {@value #FALLBACK_FOLDS} more models on a million rows
   * or more, several times the fit itself, for a rare class whose few held-out rows Platt's
   * smoothed targets still fit (Platt 1999, section 2.2).
   */
  public static final long LARGE_DATA_ROWS = 1_000_000;
  /** The fewest held-out rows of each class the default calibrates on in large data. */
  public static final int MIN_ROWS_PER_CLASS_LARGE = 5;
  /** The folds of the cross-fitting the default falls back to. */
  public static final int FALLBACK_FOLDS = 3;

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;
  private static final long SALT = 0x6A09E667F3BCC909L;

  /** No calibration rows: every row trains. */
  public static final CalibrationRows NONE = new CalibrationRows(0.0, -1, 0, 0L);

  /** The share held out (0 for none or folds). */
  private final double share;
  /** The fold whose rows calibrate (−1 for none or a share). */
  private final int fold;
  /** The number of folds (0 for none or a share). */
  private final int folds;
  private final long seed;

  private CalibrationRows(double share, int fold, int folds, long seed) {
    this.share = share;
    this.fold = fold;
    this.folds = folds;
    this.seed = seed;
  }

  /** The rows whose hash falls below {@code share} (in (0, 1)), for {@code seed}. */
  public static CalibrationRows heldOut(double share, long seed) {
    if (!(share > 0 && share < 1)) {
      throw new IllegalArgumentException("a held-out share must be in (0, 1), got " + share);
    }
    return new CalibrationRows(share, -1, 0, seed);
  }

  /** Fold {@code fold} of {@code folds} (≥ 2), for {@code seed}. */
  public static CalibrationRows fold(int fold, int folds, long seed) {
    if (folds < 2 || fold < 0 || fold >= folds) {
      throw new IllegalArgumentException("fold " + fold + " of " + folds + ": need 0 <= fold <"
          + " folds and folds >= 2");
    }
    return new CalibrationRows(0.0, fold, folds, seed);
  }

  /** Whether some rows are calibration rows (a held-out share or a fold). */
  public boolean isActive() {
    return share > 0 || folds > 0;
  }

  /** Whether these are a held-out share of the rows (the default), not a fold. */
  public boolean isHeldOutShare() {
    return share > 0;
  }

  /**
   * Whether the row of class {@code classIndex} with the {@code nnz} stored values
   * {@code values} at {@code indices} (any order; zeros ignored) is a calibration row.
   */
  public boolean holdsSparse(int classIndex, int[] indices, double[] values, int nnz) {
    if (!isActive()) {
      return false;
    }
    long key = key(seed);
    long sum = 0;
    for (int t = 0; t < nnz; t++) {
      double v = values[t];
      if (v != 0.0) {
        sum += SeededShuffle.mix64((key + GOLDEN * (indices[t] + 1L))
            ^ Double.doubleToLongBits(v));
      }
    }
    return selects(finish(key, classIndex, sum));
  }

  /** Whether the dense row of class {@code classIndex} is a calibration row. */
  public boolean holdsDense(int classIndex, double[] values) {
    if (!isActive()) {
      return false;
    }
    long key = key(seed);
    long sum = 0;
    for (int j = 0; j < values.length; j++) {
      double v = values[j];
      if (v != 0.0) {
        sum += SeededShuffle.mix64((key + GOLDEN * (j + 1L)) ^ Double.doubleToLongBits(v));
      }
    }
    return selects(finish(key, classIndex, sum));
  }

  private static long key(long seed) {
    return SeededShuffle.mix64(seed ^ SALT);
  }

  private static long finish(long key, int classIndex, long sum) {
    return SeededShuffle.mix64(SeededShuffle.mix64(key ^ (GOLDEN * (classIndex + 1L))) + sum);
  }

  private boolean selects(long hash) {
    double u = (hash >>> 11) * 0x1.0p-53;
    return share > 0 ? u < share : Math.min(folds - 1, (int) (u * folds)) == fold;
  }

  /**
   * Why held-out rows with these counts cannot calibrate the default, or {@code null} when they
   * can: the data need two classes or more, and every class they hold needs at least
   * {@value #MIN_ROWS_PER_CLASS} held-out rows (of positive weight; {@value
   * #MIN_ROWS_PER_CLASS_LARGE} in data of {@value #LARGE_DATA_ROWS} rows or more) and one
   * training row.
   *
   * @param trainingRows training rows per class index
   * @param heldOutRows held-out rows of positive weight per class index
   */
  public static String shortfall(long[] trainingRows, long[] heldOutRows) {
    int classes = Math.max(trainingRows.length, heldOutRows.length);
    long rows = 0;
    for (int k = 0; k < classes; k++) {
      rows += (k < trainingRows.length ? trainingRows[k] : 0)
          + (k < heldOutRows.length ? heldOutRows[k] : 0);
    }
    int fewest = rows >= LARGE_DATA_ROWS ? MIN_ROWS_PER_CLASS_LARGE : MIN_ROWS_PER_CLASS;
    int present = 0;
    String lacking = null;
    for (int k = 0; k < classes; k++) {
      long train = k < trainingRows.length ? trainingRows[k] : 0;
      long held = k < heldOutRows.length ? heldOutRows[k] : 0;
      if (train + held == 0) {
        continue;
      }
      present++;
      if (lacking == null && train == 0) {
        lacking = String.format(Locale.ROOT, "all %d row(s) of class %d fell among the %d%% held"
            + " out for calibration, leaving none to train on", held, k, HELD_OUT_PERCENT);
      } else if (lacking == null && held < fewest) {
        lacking = String.format(Locale.ROOT, "the %d%% of the rows held out for calibration hold"
            + " %d row(s) of class %d (of %d), fewer than the %d a class it calibrates on",
            HELD_OUT_PERCENT, held, k, train + held, fewest);
      }
    }
    return present < 2 ? "the data hold a single class" : lacking;
  }

  /** What these rows are, for logs: "none", "a held-out 10%", "fold 2 of 3". */
  public String describe() {
    if (share > 0) {
      return String.format(Locale.ROOT, "a held-out %s%% of the rows (a seeded hash of each row)",
          new java.math.BigDecimal(Double.toString(share * 100)).stripTrailingZeros()
              .toPlainString());
    }
    return folds > 0 ? "fold " + fold + " of " + folds : "none";
  }

  @Override
  public String toString() {
    return describe();
  }
}
