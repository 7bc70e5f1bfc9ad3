package io.github.sparkperceptron.jobs;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.Dependency;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.LogicalRDD;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.FileScanRDD;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The non-empty files of a file stream's micro-batch (the {@code binaryFile} listing that
 * {@code submit/stream-train} reads its batches' names from, columns {@code path} and
 * {@code length}), read without a Spark job where the batch's plan holds them.
 *
 * <p>Why: Spark hands {@code foreachBatch} the micro-batch as a {@code LogicalRDD} over the
 * executed scan, whose {@code FileScanRDD} already holds one {@code PartitionedFile} per new file
 * with its size ({@code binaryFile} files are not split, so an empty file is one too). Collecting
 * the batch's rows instead runs a Spark job for what the driver already holds: 13-18 ms of a warm
 * 50,000-row batch's 250 ms on {@code local[2]}, more with more files ({@code submit/bench
 * --sections stream-batches}, BENCHMARKS.md). Where the plan is of another shape (another leaf,
 * no file scan or more than one under it), the rows are collected as before: the answer is the
 * same either way, as {@code BatchFilesTest} checks against the collected rows.
 */
final class BatchFiles {
  private BatchFiles() {
  }

  /**
   * The paths (as the listing's {@code path} column writes them) of the batch's non-empty files,
   * each once, sorted. Once: where a new file's name holds glob characters ({@code {}[]}), Spark's
   * file source lists the batch's other files a second time (Spark 4.2: a batch of {@code a},
   * {@code f}, {@code g} and {@code b {1,2} [x] c} lists {@code a}, {@code f} and {@code g}
   * twice), and a file counted twice would be reported twice.
   */
  static List<String> nonEmpty(Dataset<Row> batch) {
    List<String> paths = fromPlan(batch.queryExecution().analyzed());
    if (paths == null) {
      paths = new ArrayList<>();
      for (Row r : batch.select("path", "length").collectAsList()) {
        if (r.getLong(1) > 0) {
          paths.add(r.getString(0));
        }
      }
    }
    return new ArrayList<>(new TreeSet<>(paths));
  }

  /** The non-empty files of the plan's one file scan, or null where the plan has another shape. */
  static List<String> fromPlan(LogicalPlan plan) {
    List<LogicalPlan> leaves = CollectionConverters.asJava(plan.collectLeaves());
    if (leaves.size() != 1 || !(leaves.get(0) instanceof LogicalRDD batch)) {
      return null;
    }
    FileScanRDD scan = null;
    Deque<RDD<?>> lineage = new ArrayDeque<>(List.of(batch.rdd()));
    // An RDD that two others depend on is one scan, not two: each is visited once.
    Set<RDD<?>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    while (!lineage.isEmpty()) {
      RDD<?> rdd = lineage.pop();
      if (!seen.add(rdd)) {
        continue;
      }
      if (rdd instanceof FileScanRDD files) {
        if (scan != null) {
          return null;
        }
        scan = files;
      }
      for (Dependency<?> d : CollectionConverters.asJava(rdd.dependencies())) {
        lineage.push(d.rdd());
      }
    }
    if (scan == null) {
      return null;
    }
    List<String> paths = new ArrayList<>();
    for (FilePartition partition : CollectionConverters.asJava(scan.filePartitions())) {
      for (PartitionedFile file : partition.files()) {
        if (file.fileSize() > 0) {
          paths.add(file.toPath().toString());
        }
      }
    }
    return paths;
  }
}
