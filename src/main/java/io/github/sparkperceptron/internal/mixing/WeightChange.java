package io.github.sparkperceptron.internal.mixing;

/**
 * The relative change of the weights over an epoch, ‖w_after − w_before‖₂ / ‖w_after‖₂: the
 * {@code tol} stopping rule's measure. One function for the driver, which decides, and the
 * workers of a barrier stage of several epochs, which end the stage where the driver will stop:
 * both sum the same terms in the same order, so they agree bit for bit.
 */
public final class WeightChange {
  private WeightChange() {
  }

  /** The values of {@code w} at {@code index}, in its order. */
  public static double[] valuesAt(double[] w, int[] index) {
    double[] out = new double[index.length];
    for (int k = 0; k < index.length; k++) {
      out[k] = w[index[k]];
    }
    return out;
  }

  /**
   * ‖after − before‖₂ / ‖after‖₂ where both vectors are zero outside their index sets
   * (increasing; {@code afterIndex} ⊇ {@code beforeIndex}), summed in increasing coordinate
   * order, which adds exactly what the dense sums would: O(non-zero coordinates), not O(K·d).
   * 0 when nothing changed, ∞ when after is 0 but moved.
   */
  public static double relative(int[] beforeIndex, double[] beforeValues, int[] afterIndex,
      double[] after) {
    return relative(beforeIndex, beforeValues, afterIndex, after, null);
  }

  /**
   * As {@link #relative(int[], double[], int[], double[])}, and writes after's values at
   * {@code afterIndex} to {@code afterValues} (at least as long; null: not kept), the next
   * epoch's before values, read in the same pass: a barrier task measures every epoch, and a
   * hashed model's support holds millions of coordinates scattered over K'·(d+1).
   */
  public static double relative(int[] beforeIndex, double[] beforeValues, int[] afterIndex,
      double[] after, double[] afterValues) {
    double diff = 0.0;
    double norm = 0.0;
    int k = 0;
    for (int i = 0; i < afterIndex.length; i++) {
      int j = afterIndex[i];
      double b = 0.0;
      if (k < beforeIndex.length && beforeIndex[k] == j) {
        b = beforeValues[k++];
      }
      double a = after[j];
      if (afterValues != null) {
        afterValues[i] = a;
      }
      double d = a - b;
      diff += d * d;
      norm += a * a;
    }
    if (diff == 0.0) {
      return 0.0;
    }
    return norm == 0.0 ? Double.POSITIVE_INFINITY : Math.sqrt(diff / norm);
  }
}
