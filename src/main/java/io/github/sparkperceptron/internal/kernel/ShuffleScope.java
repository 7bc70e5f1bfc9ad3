package io.github.sparkperceptron.internal.kernel;

/**
 * How far a shuffled epoch moves a row: anywhere among its worker's rows, or within a chunk of
 * nearby rows of a block laid out once in random order (see {@link VisitOrder}).
 *
 * <pre>
 * rows     a fresh uniform permutation of the worker's rows every epoch: the textbook order,
 *          and scikit-learn's; every row is a random memory access
 * chunks   the rows are laid out once, in a seeded uniform order, when the block is built; each
 *          epoch visits chunks of nearby rows in a random order and the rows of a chunk in a
 *          random order, so memory is read almost sequentially
 * auto     rows for a worker whose rows fit one stored chunk (8 MiB, where a random visit still
 *          finds them in cache), chunks for a worker of several: the full shuffle's model,
 *          bit for bit, wherever the chunked order buys no speed, and the chunked order where a
 *          row's random visit is a cache miss (the default; BENCHMARKS.md, issue 32)
 * </pre>
 */
public enum ShuffleScope implements ParamValue {
  ROWS("rows", "a fresh uniform permutation of the worker's rows every epoch"),
  CHUNKS("chunks", "the rows stored once in a seeded random order; each epoch visits chunks of a"
      + " few hundred neighbouring rows in a random order, and the rows of a chunk in a random"
      + " order: the same order statistics within an epoch, read from memory almost"
      + " sequentially"),
  AUTO("auto", "rows for a worker whose rows fit one stored chunk (8 MiB; the same model as"
      + " rows, bit for bit), chunks for a worker of several, where a random visit misses the"
      + " cache");

  private final String paramValue;
  private final String description;

  ShuffleScope(String paramValue, String description) {
    this.paramValue = paramValue;
    this.description = description;
  }

  /** The value of the {@code shuffleScope} param that selects this scope. */
  @Override
  public String paramValue() {
    return paramValue;
  }

  @Override
  public String description() {
    return description;
  }

  public static ShuffleScope fromParam(String value) {
    return ParamValue.parse(ShuffleScope.class, "shuffleScope", value);
  }
}
