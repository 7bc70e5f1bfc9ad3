package io.github.sparkperceptron.internal.blocks;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.Dependency;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.rdd.RDD;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What Spark's scheduler asks of the RDD chain under a barrier stage: every RDD of the stage (the
 * ancestors reached through narrow dependencies) has as many partitions as the stage has tasks,
 * or the barrier stage is refused (a coalesce, a union or pruned partitions before it). The
 * layout of the input reads it to gather the workers through a shuffle instead, and the plan to
 * say why the rounds run as jobs.
 */
final class BarrierChain {
  private BarrierChain() {
  }

  /**
   * The first RDD in {@code rdd}'s stage (its ancestors through non-shuffle dependencies, as
   * Spark's DAGScheduler walks them) with another number of partitions than {@code tasks},
   * described, or null: Spark runs a barrier stage only over a chain without one.
   */
  static String problem(RDD<?> rdd, int tasks) {
    Deque<RDD<?>> todo = new ArrayDeque<>();
    Set<Integer> seen = new HashSet<>();
    todo.push(rdd);
    while (!todo.isEmpty()) {
      RDD<?> r = todo.pop();
      if (!seen.add(r.id())) {
        continue;
      }
      if (r.getNumPartitions() != tasks) {
        return String.format(Locale.ROOT, "%s has %d partitions, not %d", r, r.getNumPartitions(),
            tasks);
      }
      for (Dependency<?> d : CollectionConverters.asJava(r.dependencies())) {
        if (!(d instanceof ShuffleDependency)) {
          todo.push(d.rdd());
        }
      }
    }
    return null;
  }
}
