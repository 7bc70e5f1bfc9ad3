package io.github.sparkperceptron.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Datasets for tests: the real ones shipped in {@code data-samples/} (a clone has everything its
 * tests read), and seeded synthetic ones with known geometry.
 */
public final class TestData {
  private TestData() {
  }

  public static final StructType SCHEMA = new StructType(new StructField[] {
      DataTypes.createStructField("label", DataTypes.DoubleType, true),
      DataTypes.createStructField("features", SQLDataTypes.VectorType(), true)});

  /** One labelled row. */
  public static final class Example {
    public final double label;
    public final Vector features;

    public Example(double label, Vector features) {
      this.label = label;
      this.features = features;
    }
  }

  /** The project root (Surefire runs there; the property makes it explicit). */
  public static Path projectRoot() {
    return Paths.get(System.getProperty("project.basedir", ".")).toAbsolutePath();
  }

  /**
   * A file of the real datasets in the repository: data-samples/NAME/FILE, or FILE.gz when only
   * the gzipped copy is shipped (skin_nonskin). Spark's text sources, the job readers and
   * {@link #readLibSvm} all read either.
   */
  public static Path sharedData(String name, String file) {
    Path plain = projectRoot().resolve("data-samples").resolve(name).resolve(file);
    Path gzipped = plain.resolveSibling(file + ".gz");
    return !Files.exists(plain) && Files.exists(gzipped) ? gzipped : plain;
  }

  /**
   * A plain-text copy of a data file in {@code dir}: for tests that need byte-range input splits,
   * which Hadoop cannot cut in a gzipped file.
   */
  public static Path uncompressed(Path file, Path dir) {
    String name = file.getFileName().toString();
    if (!name.endsWith(".gz")) {
      return file;
    }
    Path copy = dir.resolve(name.substring(0, name.length() - ".gz".length()));
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
      return copy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> lines(Path file) throws IOException {
    if (!file.getFileName().toString().endsWith(".gz")) {
      return Files.readAllLines(file);
    }
    try (BufferedReader in = new BufferedReader(new InputStreamReader(
        new GZIPInputStream(Files.newInputStream(file)), StandardCharsets.UTF_8))) {
      return in.lines().collect(Collectors.toList());
    }
  }

  /** Reads a LIBSVM file (1-based indices; gzipped when named *.gz) into examples. */
  public static List<Example> readLibSvm(Path file, int numFeatures) {
    try {
      List<Example> out = new ArrayList<>();
      for (String line : lines(file)) {
        line = line.trim();
        if (line.isEmpty()) {
          continue;
        }
        String[] parts = line.split("\\s+");
        int[] idx = new int[parts.length - 1];
        double[] val = new double[parts.length - 1];
        for (int k = 1; k < parts.length; k++) {
          String[] iv = parts[k].split(":");
          idx[k - 1] = Integer.parseInt(iv[0]) - 1;
          val[k - 1] = Double.parseDouble(iv[1]);
        }
        out.add(new Example(Double.parseDouble(parts[0]),
            Vectors.sparse(numFeatures, idx, val)));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A DataFrame of literal rows, one {@code Object[]} of column values per row, in order. */
  public static Dataset<Row> rows(SparkSession spark, StructType schema, Object[]... rows) {
    List<Row> list = new ArrayList<>();
    for (Object[] r : rows) {
      list.add(RowFactory.create(r));
    }
    return spark.createDataFrame(list, schema);
  }

  /** Writes a text file of {@code lines} (creating its directory) and returns its path. */
  public static Path textFile(Path dir, String name, String... lines) {
    Path p = dir.resolve(name);
    try {
      Files.createDirectories(p.getParent());
      Files.write(p, List.of(lines));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p;
  }

  public static Dataset<Row> frame(SparkSession spark, List<Example> examples, int partitions) {
    return spark.createDataFrame(rowsOf(examples), SCHEMA).repartition(partitions);
  }

  private static List<Row> rowsOf(List<Example> examples) {
    List<Row> rows = new ArrayList<>();
    for (Example e : examples) {
      rows.add(RowFactory.create(e.label, e.features));
    }
    return rows;
  }

  /**
   * Rows in exactly the given order and partitioning: partition p holds the p-th contiguous
   * slice. ({@code repartition} would shuffle rows round-robin.)
   */
  public static Dataset<Row> frameInOrder(SparkSession spark, List<Example> examples,
      int partitions) {
    return spark.createDataFrame(
        new JavaSparkContext(spark.sparkContext())
            .parallelize(rowsOf(examples), partitions), SCHEMA);
  }

  /**
   * As {@link #frameInOrder(SparkSession, List, int)}, with a third column {@code weight} holding
   * {@code weights[i]} for row i.
   */
  public static Dataset<Row> frameInOrder(SparkSession spark, List<Example> examples,
      List<Double> weights, int partitions) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < examples.size(); i++) {
      rows.add(RowFactory.create(examples.get(i).label, examples.get(i).features,
          weights.get(i)));
    }
    StructType schema = SCHEMA.add(DataTypes.createStructField("weight", DataTypes.DoubleType,
        false));
    return spark.createDataFrame(
        new JavaSparkContext(spark.sparkContext())
            .parallelize(rows, partitions), schema);
  }

  /**
   * Seeded data separable with a known margin. Binary: a random unit vector u; points x uniform in
   * [−1, 1]^d with |u·x| ≥ gap are kept, label 1 when u·x &gt; 0. Multiclass: K random unit vectors
   * u_k; label argmax_k u_k·x, kept when the best score beats the second by ≥ gap.
   */
  public static Separable separable(long seed, int n, int d, double gap, int numClasses) {
    return new Separable(seed, n, d, gap, numClasses);
  }

  /** Seeded separable data and the facts a mistake bound needs. */
  public static final class Separable {
    public final List<Example> examples = new ArrayList<>();
    /** max ‖x‖ over the examples (without the bias feature). */
    public double radius;
    /**
     * The margin γ of a unit-norm separator in the geometry of the perceptron bound: gap for
     * binary data (separator u); gap/√K for multiclass data (the joint separator (u_1..u_K)/√K,
     * Collins 2002, whose feature differences have norm √2·‖x‖).
     */
    public final double gamma;
    /** The radius R of the bound: max ‖x‖ for binary, √2·max ‖x‖ for multiclass data. */
    public final double boundRadius;

    Separable(long seed, int n, int d, double gap, int numClasses) {
      Random rnd = new Random(seed);
      int prototypes = numClasses == 2 ? 1 : numClasses;
      double[][] u = new double[prototypes][d];
      for (double[] row : u) {
        double norm = 0;
        for (int j = 0; j < d; j++) {
          row[j] = rnd.nextGaussian();
          norm += row[j] * row[j];
        }
        norm = Math.sqrt(norm);
        for (int j = 0; j < d; j++) {
          row[j] /= norm;
        }
      }
      while (examples.size() < n) {
        double[] x = new double[d];
        for (int j = 0; j < d; j++) {
          x[j] = 2 * rnd.nextDouble() - 1;
        }
        double[] scores = new double[prototypes];
        for (int k = 0; k < prototypes; k++) {
          for (int j = 0; j < d; j++) {
            scores[k] += u[k][j] * x[j];
          }
        }
        double label;
        if (prototypes == 1) {
          if (Math.abs(scores[0]) < gap) {
            continue;
          }
          label = scores[0] > 0 ? 1.0 : 0.0;
        } else {
          int best = 0;
          for (int k = 1; k < prototypes; k++) {
            if (scores[k] > scores[best]) {
              best = k;
            }
          }
          double second = Double.NEGATIVE_INFINITY;
          for (int k = 0; k < prototypes; k++) {
            if (k != best) {
              second = Math.max(second, scores[k]);
            }
          }
          if (scores[best] - second < gap) {
            continue;
          }
          label = best;
        }
        double nx = 0;
        for (int j = 0; j < d; j++) {
          nx += x[j] * x[j];
        }
        radius = Math.max(radius, Math.sqrt(nx));
        examples.add(new Example(label, Vectors.dense(x)));
      }
      this.gamma = prototypes == 1 ? gap : gap / Math.sqrt(numClasses);
      this.boundRadius = prototypes == 1 ? radius : Math.sqrt(2) * radius;
    }
  }
}
