package io.github.sparkperceptron.internal.blocks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.plan.MemoryPlan;
import io.github.sparkperceptron.testing.SparkTestSupport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function2;
import org.junit.jupiter.api.Test;

/**
 * {@link PartitionJob} returns what Spark's Java API returns for the same task, in the same
 * order, on both of its paths (one job; Spark's tree where it builds a level), and a task's
 * failure reads as it does through Spark's API.
 */
class PartitionJobTest {
  private static final JavaSparkContext JSC = JavaSparkContext.fromSparkContext(
      SparkTestSupport.spark().sparkContext());

  /** Each partition's index and the sum of its elements; two values from partition 1. */
  private static final Function2<Integer, Iterator<Integer>, Iterator<long[]>> TASK =
      (p, it) -> {
        long sum = 0;
        while (it.hasNext()) {
          sum += it.next();
        }
        List<long[]> out = new ArrayList<>();
        out.add(new long[] {p, sum});
        if (p == 1) {
          out.add(new long[] {-1, 7});
        }
        return out.iterator();
      };

  private static JavaRDD<Integer> numbers(int partitions) {
    List<Integer> values = new ArrayList<>();
    for (int i = 1; i <= 100; i++) {
      values.add(i * i);
    }
    return JSC.parallelize(values, partitions);
  }

  @Test
  void collectAndMapReturnWhatSparksJavaApiReturnsInPartitionOrder() {
    for (int partitions : new int[] {1, 2, 7}) {
      JavaRDD<Integer> rdd = numbers(partitions);
      List<long[]> expected = rdd.mapPartitionsWithIndex(TASK, true).collect();
      List<long[]> actual = PartitionJob.collect(rdd.rdd(), TASK);
      assertEquals(expected.size(), actual.size());
      for (int i = 0; i < expected.size(); i++) {
        assertEquals(List.of(expected.get(i)[0], expected.get(i)[1]),
            List.of(actual.get(i)[0], actual.get(i)[1]), partitions + " partitions, value " + i);
      }
      assertEquals(rdd.map(x -> x + 1).collect(), PartitionJob.map(rdd, x -> x + 1));
    }
  }

  /** 4 partitions have no tree level at depth 2, 12 have one: both sum as treeAggregate does. */
  @Test
  void aggregateEqualsTreeAggregateWithAndWithoutATreeLevel() {
    assertEquals(4, MemoryPlan.treeAggregatePartials(4, 2));
    assertTrue(MemoryPlan.treeAggregatePartials(12, 2) < 12);
    for (int partitions : new int[] {4, 12}) {
      JavaRDD<Integer> rdd = numbers(partitions);
      Function2<Long, long[], Long> add = (s, v) -> s + v[0] * 1000 + v[1];
      Function2<Long, Long, Long> merge = Long::sum;
      long expected = rdd.mapPartitionsWithIndex(TASK, true).treeAggregate(0L, add, merge, 2);
      assertEquals(expected, PartitionJob.aggregate(rdd.rdd(), TASK, 0L, add, merge, 2),
          partitions + " partitions");
    }
  }

  /** A task's exception, checked or not, fails the job with its own message, as Spark's does. */
  @Test
  void aTasksFailureReadsAsItDoesThroughSparksApi() {
    JavaRDD<Integer> rdd = numbers(2);
    Function2<Integer, Iterator<Integer>, Iterator<Integer>> fails = (p, it) -> {
      throw new IOException("partition " + p + " cannot be read");
    };
    Exception spark = assertThrows(Exception.class,
        () -> rdd.mapPartitionsWithIndex(fails, true).collect());
    Exception ours = assertThrows(Exception.class, () -> PartitionJob.collect(rdd.rdd(), fails));
    assertEquals(spark.getClass(), ours.getClass());
    assertTrue(ours.getMessage().contains("java.io.IOException: partition "), ours.getMessage());
    assertTrue(spark.getMessage().contains("java.io.IOException: partition "),
        spark.getMessage());
  }
}
