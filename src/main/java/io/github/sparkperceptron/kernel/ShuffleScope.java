package io.github.sparkperceptron.kernel;

import java.util.Locale;

/**
 * How far a shuffled epoch moves a row: anywhere in its partition, or within a chunk of nearby
 * rows of a block laid out once in random order (see {@link VisitOrder}).
 *
 * <pre>
 * rows     a fresh uniform permutation of the partition's rows every epoch: the textbook order,
 *          and scikit-learn's; every row is a random memory access
 * chunks   the rows are laid out once, in a seeded uniform order, when the block is built; each
 *          epoch visits chunks of nearby rows in a random order and the rows of a chunk in a
 *          random order, so memory is read almost sequentially
 * </pre>
 */
public enum ShuffleScope {
  ROWS("rows"),
  CHUNKS("chunks");

  private final String paramValue;

  ShuffleScope(String paramValue) {
    this.paramValue = paramValue;
  }

  public String paramValue() {
    return paramValue;
  }

  public static ShuffleScope fromParam(String value) {
    String v = value.toLowerCase(Locale.ROOT);
    for (ShuffleScope s : values()) {
      if (s.paramValue.equals(v)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown shuffleScope '" + value
        + "'; expected one of rows, chunks");
  }
}
