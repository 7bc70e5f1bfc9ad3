package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A directory that a file stream reads, filled batch by batch in the tests: each
 * {@link #add} writes one Parquet file (one partition, rows in the given order) with a
 * modification time later than the previous file's, so that Spark's file source, which takes new
 * files oldest first, sees them in the order they were added.
 */
final class StreamInput {
  private final SparkSession spark;
  final Path dir;
  private final Path scratch;
  private int files;

  StreamInput(SparkSession spark, Path root) {
    this.spark = spark;
    this.dir = root.resolve("in");
    this.scratch = root.resolve("scratch");
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Adds one file holding {@code examples}, in order. */
  Path add(List<TestData.Example> examples) {
    Path out = scratch.resolve(String.valueOf(files));
    TestData.frameInOrder(spark, examples, 1).write().parquet(out.toString());
    try (Stream<Path> parts = Files.list(out)) {
      Path part = parts.filter(p -> p.getFileName().toString().endsWith(".parquet"))
          .findFirst().orElseThrow();
      Path target = dir.resolve(String.format("batch-%03d.parquet", files));
      Files.move(part, target);
      Files.setLastModifiedTime(target, FileTime.fromMillis(1_700_000_000_000L + files * 1000L));
      files++;
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The stream of (label, features) rows, one file per micro-batch. */
  Dataset<Row> stream() {
    return spark.readStream().schema(TestData.SCHEMA).option("maxFilesPerTrigger", 1)
        .parquet(dir.toString());
  }

  /** {@code examples} cut into {@code k} consecutive slices of (nearly) equal size. */
  static List<List<TestData.Example>> slices(List<TestData.Example> examples, int k) {
    List<List<TestData.Example>> out = new ArrayList<>();
    int n = examples.size();
    for (int i = 0; i < k; i++) {
      out.add(examples.subList(i * n / k, (i + 1) * n / k));
    }
    return out;
  }
}
