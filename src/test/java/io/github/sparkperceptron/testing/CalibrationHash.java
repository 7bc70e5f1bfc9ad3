package io.github.sparkperceptron.testing;

import org.apache.spark.ml.linalg.Vector;

/**
 * The row hash of {@code internal.calibration.CalibrationRows}, written again here from the
 * formula of its Javadoc (SplitMix64's finalizer from Steele, Lea &amp; Flood 2014's constants),
 * so that tests name the rows a training holds out without asking the code under test.
 */
public final class CalibrationHash {
  private static final long G = 0x9E3779B97F4A7C15L;

  private CalibrationHash() {
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** u in [0, 1) of a row of class {@code classIndex} with features {@code x} (zeros skipped). */
  public static double unit(long seed, int classIndex, double[] x) {
    long key = mix(seed ^ 0x6A09E667F3BCC909L);
    long sum = 0;
    for (int j = 0; j < x.length; j++) {
      if (x[j] != 0) {
        sum += mix((key + G * (j + 1L)) ^ Double.doubleToLongBits(x[j]));
      }
    }
    long h = mix(mix(key ^ (G * (classIndex + 1L))) + sum);
    return (h >>> 11) * 0x1.0p-53;
  }

  /** {@link #unit} of a labelled row. */
  public static double unit(long seed, double label, Vector features) {
    return unit(seed, (int) label, features.toArray());
  }
}
