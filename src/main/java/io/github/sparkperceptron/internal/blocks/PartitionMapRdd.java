package io.github.sparkperceptron.internal.blocks;

import java.util.Iterator;
import org.apache.spark.Partition;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.rdd.RDD;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;

/**
 * What {@code rdd.mapPartitionsWithIndex(f, false)} returns, as an RDD class of our own: each
 * partition of the parent turned by {@code f} (given the partition's index) into a partition of
 * this one, one to one. Spark's method wraps {@code f} in a Scala closure of its own, which the
 * closure cleaner parses (RDD's whole class file) on every call: a conversion of the input paid
 * that on each of a small default fit's five conversions (see {@link PartitionJob}, which spares
 * the jobs the same cost).
 */
final class PartitionMapRdd<T, U> extends RDD<U> {
  private static final long serialVersionUID = 1L;
  private final RDD<T> parent;
  private final Function2<Integer, Iterator<T>, Iterator<U>> f;

  PartitionMapRdd(RDD<T> parent, Function2<Integer, Iterator<T>, Iterator<U>> f,
      ClassTag<U> tag) {
    super(parent, tag);
    this.parent = parent;
    this.f = f;
  }

  @Override
  public scala.collection.Iterator<U> compute(Partition split, TaskContext context) {
    try {
      return CollectionConverters.asScala(f.call(split.index(),
          CollectionConverters.asJava(parent.iterator(split, context))));
    } catch (Exception e) {
      throw PartitionJob.<RuntimeException>rethrow(e);
    }
  }

  @Override
  public Partition[] getPartitions() {
    return parent.partitions();
  }
}
