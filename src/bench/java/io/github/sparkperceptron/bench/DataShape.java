package io.github.sparkperceptron.bench;

import java.util.Locale;

/** What a benchmark row says about its data: name, size, shape and where it came from. */
final class DataShape {
  final String name;
  final long rows;
  final int numFeatures;
  final long storedValues;
  final int numClasses;
  /** The generator's seed, or null for a file. */
  final Long seed;
  final boolean dense;

  DataShape(String name, long rows, int numFeatures, long storedValues, int numClasses, Long seed,
      boolean dense) {
    this.name = name;
    this.rows = rows;
    this.numFeatures = numFeatures;
    this.storedValues = storedValues;
    this.numClasses = numClasses;
    this.seed = seed;
    this.dense = dense;
  }

  String seedText() {
    return seed == null ? "file" : Long.toString(seed);
  }

  /** "455 x 30, 13,548 stored, K=2" */
  String describe() {
    return String.format(Locale.ROOT, "%,d x %,d, %,d stored, K=%d%s", rows, numFeatures,
        storedValues, numClasses, seed == null ? "" : ", seed " + seed);
  }
}
