package io.github.sparkperceptron.testing;

import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;

/**
 * One partition's examples as the serial algorithm sees them under a {@link VisitOrder}: in the
 * order the partition's block stores them (the layout), with the order of every epoch. The naive
 * reference learns the order from the library's Spark-free {@link VisitOrder} (an order is a
 * convention, not arithmetic) and does all the arithmetic itself.
 */
public final class SerialOrder {
  /** The examples' dense features, in stored order. */
  public final List<double[]> xs = new ArrayList<>();
  /** Their labels, in stored order. */
  public final List<Integer> labels = new ArrayList<>();
  /** The rows (indices into {@link #xs}) to visit in each epoch. */
  public final IntFunction<int[]> orders;
  /** The same visits as indices into the examples as given (the layout undone). */
  public final IntFunction<int[]> inputOrders;
  /** Rows per chunk of the chunked order ({@link VisitOrder#chunkRows}) of this block. */
  public final int chunkRows;

  private SerialOrder(VisitOrder order, int partition, List<TestData.Example> examples) {
    int n = examples.size();
    int[] layout = order.layout(partition, n);
    for (int i = 0; i < n; i++) {
      TestData.Example e = examples.get(layout == null ? i : layout[i]);
      xs.add(e.features.toArray());
      labels.add((int) e.label);
    }
    // The chunk size depends on the stored block's bytes per row: build it as the task does.
    TrainingBlock block = block(examples, layout);
    this.chunkRows = VisitOrder.chunkRows(block.features());
    this.orders = epoch -> order.epochOrder(epoch, partition, block.features()).rows();
    this.inputOrders = epoch -> {
      int[] stored = orders.apply(epoch);
      int[] input = new int[stored.length];
      for (int t = 0; t < stored.length; t++) {
        input[t] = layout == null ? stored[t] : layout[stored[t]];
      }
      return input;
    };
  }

  public static SerialOrder of(VisitOrder order, int partition, List<TestData.Example> examples) {
    return new SerialOrder(order, partition, examples);
  }

  private static TrainingBlock block(List<TestData.Example> examples, int[] layout) {
    int d = examples.isEmpty() ? 0 : examples.get(0).features.size();
    TrainingBlockBuilder builder = new TrainingBlockBuilder(d);
    for (TestData.Example e : examples) {
      Vector v = e.features;
      if (v instanceof SparseVector) {
        SparseVector sv = (SparseVector) v;
        builder.addSparse((int) e.label, 1.0, sv.indices(), sv.values(), sv.indices().length);
      } else {
        builder.addDense((int) e.label, 1.0, v.toArray());
      }
    }
    return builder.build(layout);
  }
}
