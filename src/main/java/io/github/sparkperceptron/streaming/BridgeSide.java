package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.internal.blocks.BatchInput;
import io.github.sparkperceptron.internal.streaming.StreamingBridge;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;

/**
 * This package's side of the {@link StreamingBridge}: the jobs' way into a stream of
 * {@link BatchInput}s, lent without making it public. Registers itself when the bridge first
 * initializes it (by name: see {@code internal.ml.Lent}).
 */
final class BridgeSide extends StreamingBridge.Streaming {
  static {
    StreamingBridge.lend(new BridgeSide());
  }

  private BridgeSide() {
  }

  @Override
  protected StreamingQuery startBatchInputs(StreamingPerceptron trainer, Dataset<Row> stream,
      Trigger trigger, Function<Dataset<Row>, BatchInput> toBatchInput) throws TimeoutException {
    return trainer.startBatchInputs(stream, trigger, toBatchInput);
  }
}
