package io.github.sparkperceptron.jobs;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;

/**
 * The jobs' {@code --partitions P}: the rows dealt evenly into P partitions by a shuffle, in an
 * order that depends on the input alone. A shuffle hands each partition its rows in the order
 * its fetches complete, which varies from run to run on a cluster, and the model depends on
 * that order (each epoch's seeded shuffle starts from it). So the rows are numbered before the
 * shuffle (the number is a function of the input splits) and sorted by that number after it.
 */
final class InputRepartition {
  private static final String ROW_NUMBER = "__perceptron_input_row";

  private InputRepartition() {
  }

  /** {@code frame} in {@code partitions} partitions, or as it is for 0 or its own count. */
  static Dataset<Row> of(Dataset<Row> frame, int partitions) {
    if (partitions == 0 || partitions == frame.rdd().getNumPartitions()) {
      return frame;
    }
    return frame.withColumn(ROW_NUMBER, functions.monotonically_increasing_id())
        .repartition(partitions).sortWithinPartitions(ROW_NUMBER).drop(ROW_NUMBER);
  }
}
