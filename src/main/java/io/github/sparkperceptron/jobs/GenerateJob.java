package io.github.sparkperceptron.jobs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.sparkperceptron.data.SyntheticData;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code submit/generate}: writes a synthetic training set (and optionally a test set from the
 * same distribution) made by {@link SyntheticData}, generated in parallel by the executors, as
 * LIBSVM text or Parquet, with the settings in {@code spec.json} beside the data.
 */
@Command(name = "generate", sortOptions = false, mixinStandardHelpOptions = true,
    versionProvider = JobVersion.class,
    description = {"Write synthetic classification data: linearly separable with a cosine margin,"
        + " then label noise; sparse or dense, two or more classes, reproducible from a seed.",
        "Writes OUTPUT/train, OUTPUT/test (with --test-rows) and OUTPUT/spec.json."},
    footer = {"", "Spark options (--master, --conf, --properties-file, --driver-memory, ...) go to"
        + " spark-submit; the default master is local[*].",
        "Exit codes: 0 success, 2 bad usage or bad input, 1 any other failure."})
public final class GenerateJob implements Callable<Integer> {

  /** The formats the job writes. */
  enum OutputFormat {
    libsvm,
    parquet
  }

  @Option(names = "--output", required = true, paramLabel = "DIR",
      description = "output directory (local, file:// or hdfs://)")
  String outputPath;

  @Option(names = "--rows", required = true, paramLabel = "N", description = "training rows")
  long rows;

  @Option(names = "--test-rows", paramLabel = "M", defaultValue = "0",
      description = "test rows from the same distribution, written to OUTPUT/test"
          + " (default: ${DEFAULT-VALUE})")
  long testRows;

  @Option(names = "--features", paramLabel = "D", defaultValue = "1000",
      description = "length d of every feature vector (default: ${DEFAULT-VALUE})")
  int features;

  @Option(names = "--nnz", paramLabel = "K", defaultValue = "20",
      description = "non-zeros per row; 0 writes dense rows (default: ${DEFAULT-VALUE})")
  int nnz;

  @Option(names = "--dense", description = "dense rows (same as --nnz 0)")
  boolean dense;

  @Option(names = "--classes", paramLabel = "K", defaultValue = "2",
      description = "number of classes, labels 0..K-1 (default: ${DEFAULT-VALUE})")
  int classes;

  @Option(names = "--margin", paramLabel = "GAMMA", defaultValue = "0.05",
      description = "cosine margin in [0, 1) that every row keeps before label noise"
          + " (default: ${DEFAULT-VALUE})")
  double margin;

  @Option(names = "--label-noise", paramLabel = "RATE", defaultValue = "0.0",
      description = "share of rows given another class at random (default: ${DEFAULT-VALUE})")
  double labelNoise;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "1",
      description = "random seed; the same seed gives the same rows (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "libsvm",
      description = "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})")
  OutputFormat format;

  @Option(names = "--partitions", paramLabel = "P", defaultValue = "0",
      description = "partitions (output files) per set; 0 uses Spark's default parallelism"
          + " (default: ${DEFAULT-VALUE})")
  int partitions;

  @Option(names = "--overwrite", description = "replace an existing output directory")
  boolean overwrite;

  @Spec
  CommandSpec spec;

  public static void main(String[] args) {
    System.exit(JobSupport.run(new GenerateJob(), args));
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    if (rows < 1) {
      throw new IllegalArgumentException("--rows must be >= 1, got " + rows);
    }
    if (testRows < 0 || partitions < 0) {
      throw new IllegalArgumentException("--test-rows and --partitions must be >= 0");
    }
    SyntheticData data = SyntheticData.builder().numFeatures(features)
        .nonZerosPerRow(dense ? 0 : nnz).numClasses(classes).margin(margin)
        .labelNoise(labelNoise).seed(seed).build();

    SparkSession spark = JobSupport.session("spark-perceptron generate");
    ModelOutput output = new ModelOutput(spark.sparkContext().hadoopConfiguration());
    output.checkWritable(outputPath, overwrite, "--output");
    int parts = partitions > 0 ? partitions : spark.sparkContext().defaultParallelism();

    long start = System.nanoTime();
    String temporary = output.temporarySibling(outputPath);
    try {
      write(data.frame(spark, 0, rows, parts), new Path(temporary, "train").toString());
      if (testRows > 0) {
        int testParts = (int) Math.max(1, Math.min(parts, (long) parts * testRows / rows));
        write(data.frame(spark, rows, testRows, testParts), new Path(temporary, "test").toString());
      }
      output.writeText(new Path(temporary, "spec.json").toString(), Json.write(specJson(data)));
      output.commit(temporary, outputPath);
    } catch (RuntimeException e) {
      output.discard(temporary);
      throw e;
    }
    out.printf(Locale.ROOT, "Wrote %,d training%s rows (%s) as %s to %s in %.1f s%n", rows,
        testRows > 0 ? String.format(Locale.ROOT, " and %,d test", testRows) : "",
        data.describe(), format, outputPath, (System.nanoTime() - start) / 1e9);
    out.flush();
    return JobFailure.OK;
  }

  private void write(Dataset<Row> frame, String path) {
    if (format == OutputFormat.libsvm) {
      frame.write().format("libsvm").save(path);
    } else {
      frame.write().parquet(path);
    }
  }

  private ObjectNode specJson(SyntheticData data) {
    ObjectNode root = Json.object();
    root.put("generator", SyntheticData.class.getName());
    root.put("rows", rows);
    root.put("testRows", testRows);
    root.put("numFeatures", data.numFeatures());
    root.put("nonZerosPerRow", data.nonZerosPerRow());
    root.put("dense", data.isDense());
    root.put("numClasses", data.numClasses());
    Json.putNumber(root, "margin", data.margin());
    Json.putNumber(root, "labelNoise", data.labelNoise());
    root.put("seed", data.seed());
    root.put("format", format.name());
    root.put("train", "train");
    if (testRows > 0) {
      root.put("test", "test");
    }
    return root;
  }
}
