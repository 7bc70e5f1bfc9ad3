package io.github.sparkperceptron.internal.io;

/**
 * Receives the examples a one-pass text reader ({@link TextInput#read}) parses, straight from
 * the parser's buffers: the receiver copies what it keeps before it returns, since the buffers
 * are reused for the next line. The class index is already final for every input the driver
 * will accept: a label −1 arrives as class 0, which is what it means when the file's labels turn
 * out to be −1/+1, and any other outcome is an error anyway (see {@link LabelCheck}). A class
 * index beyond int's range arrives as {@link Integer#MAX_VALUE}, which no model has.
 */
public interface RowSink {
  /**
   * A sparse example: {@code nnz} (0-based feature index, value) pairs, indices strictly
   * increasing, values finite (explicit zeros included, as written).
   *
   * @return {@code null}, or why the example cannot be used (a phrase that the reader places
   *     after its file:line); the reader then stops sending examples
   */
  String sparse(int classIndex, double weight, int[] indices, double[] values, int nnz);

  /**
   * A dense example of {@link TextInput#numFeatures()} finite values.
   *
   * @return as {@link #sparse}
   */
  String dense(int classIndex, double weight, double[] values);
}
