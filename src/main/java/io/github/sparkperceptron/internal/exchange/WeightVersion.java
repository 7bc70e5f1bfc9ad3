package io.github.sparkperceptron.internal.exchange;

import java.io.Serializable;

/**
 * The weights at one version of a training: either all of them (a snapshot; {@code null} values
 * meaning all zero, so that a training from scratch ships nothing) or the coordinates that
 * changed from the previous version, with their new values.
 */
final class WeightVersion implements Serializable {
  private static final long serialVersionUID = 1L;

  final long version;
  /** Changed coordinates in increasing order, or {@code null} for a snapshot. */
  final int[] index;
  /** New values at {@link #index}; a snapshot's every value (or {@code null}: all zero). */
  final double[] values;

  private WeightVersion(long version, int[] index, double[] values) {
    this.version = version;
    this.index = index;
    this.values = values;
  }

  static WeightVersion snapshot(long version, double[] values, boolean allZero) {
    return new WeightVersion(version, null, allZero ? null : values);
  }

  static WeightVersion changes(long version, int[] index, double[] values) {
    return new WeightVersion(version, index, values);
  }
  /** Applies these changes (not a snapshot) to {@code w}. */
  void applyTo(double[] w) {
    for (int k = 0; k < index.length; k++) {
      w[index[k]] = values[k];
    }
  }

  /** Stored values (what shipping this costs, in doubles). */
  long size() {
    return index == null ? (values == null ? 0 : values.length) : index.length;
  }
}
