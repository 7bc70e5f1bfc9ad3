package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A directory that a file stream reads, filled batch by batch in the tests: each {@link #add}
 * writes one file with a modification time later than the previous file's, so that Spark's file
 * source, which takes new files oldest first, sees them in the order they were added; a small
 * file is one partition, read in line order.
 *
 * <p>The files are JSON lines of (label, features) in the vector type's own struct form: Spark's
 * LIBSVM source cannot stream (Spark 4.2 loses its numFeatures option on the way to the stream's
 * reader: "key not found: numFeatures"), and writing Parquet through Spark costs seconds a file.
 */
final class StreamInput {
  private final SparkSession spark;
  private final int numFeatures;
  final Path dir;
  private int files;

  StreamInput(SparkSession spark, Path root, int numFeatures) {
    this.spark = spark;
    this.numFeatures = numFeatures;
    this.dir = root.resolve("in");
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Adds one file holding the examples of {@code lines} (LIBSVM, 1-based indices), in order. */
  Path add(List<String> lines) {
    List<String> json = new ArrayList<>();
    for (String line : lines) {
      String[] parts = line.trim().split("\\s+");
      StringBuilder indices = new StringBuilder();
      StringBuilder values = new StringBuilder();
      for (int k = 1; k < parts.length; k++) {
        String[] iv = parts[k].split(":");
        indices.append(k > 1 ? "," : "").append(Integer.parseInt(iv[0]) - 1);
        values.append(k > 1 ? "," : "").append(Double.parseDouble(iv[1]));
      }
      json.add("{\"label\":" + Double.parseDouble(parts[0]) + ",\"features\":{\"type\":0,"
          + "\"size\":" + numFeatures + ",\"indices\":[" + indices + "],\"values\":[" + values
          + "]}}");
    }
    try {
      Path target = dir.resolve(String.format("batch-%03d.json", files));
      Files.write(target, json);
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
        .json(dir.toString());
  }

  /** The lines of a shared LIBSVM dataset file. */
  static List<String> lines(String dataset, String file) {
    try {
      return Files.readAllLines(TestData.sharedData(dataset, file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The examples of LIBSVM lines, parsed by the tests' own reader. */
  static List<TestData.Example> examples(List<String> lines, int numFeatures, Path scratch) {
    try {
      Path file = Files.createTempFile(scratch, "examples", ".libsvm");
      Files.write(file, lines);
      return TestData.readLibSvm(file, numFeatures);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code items} cut into {@code k} consecutive slices of (nearly) equal size. */
  static <T> List<List<T>> slices(List<T> items, int k) {
    List<List<T>> out = new ArrayList<>();
    int n = items.size();
    for (int i = 0; i < k; i++) {
      out.add(items.subList(i * n / k, (i + 1) * n / k));
    }
    return out;
  }
}
