package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.io.LibSvmSource;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The refusals of the memory plan ({@code train.MemoryPlan}) that a user meets through
 * {@code fit} (a wide LIBSVM file, an initial model of that size), which must come before
 * anything of the model's size is allocated.
 */
class MemoryRefusalTest {
  @TempDir
  Path tmp;

  @Test
  void aWideLibSvmFileIsRefusedBeforeTheFirstEpoch() throws Exception {
    // The file: two lines, one index of 300,000,000. A zero state alone is 4.8 GB here.
    SparkSession spark = SparkTestSupport.spark();
    Path file = tmp.resolve("wide.libsvm");
    Files.writeString(file, "1 300000000:1\n0 1:1\n");
    Dataset<Row> frame = LibSvmSource.read(spark, file.toString(), -1, "data").frame();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new PerceptronClassifier().fit(frame));
    String m = e.getMessage();
    assertTrue(m.startsWith("Training needs about "), m);
    assertTrue(m.contains("MiB on the driver"), m);
    assertTrue(m.contains("with d = 300,000,000 features and K = 2 classes, one copy of the"
        + " weights takes 2,289 MiB"), m);
    assertTrue(m.contains("--driver-memory"), m);
  }

  @Test
  void anInitialModelOfThatSizeIsRefusedBeforeItIsCopied() {
    // 40 million features: the model itself (320 MB) fits this JVM, its training does not:
    // the check must come before the zero state and the copy of the initial weights.
    int d = 40_000_000;
    SparkSession spark = SparkTestSupport.spark();
    PerceptronClassificationModel initial = new PerceptronClassificationModel("initial", 2, d,
        new double[d], new double[1], null);
    List<TestData.Example> rows = List.of(
        new TestData.Example(1.0, Vectors.sparse(d, new int[] {d - 1}, new double[] {1.0})),
        new TestData.Example(0.0, Vectors.sparse(d, new int[] {0}, new double[] {1.0})));
    Dataset<Row> frame = TestData.frameInOrder(spark, rows, 1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new PerceptronClassifier().setInitialModel(initial).fit(frame));
    String m = e.getMessage();
    assertTrue(m.contains("with d = 40,000,000 features and K = 2 classes"), m);
    assertTrue(m.contains("one copy of the weights takes 306 MiB"), m);
    assertTrue(m.contains("the initial model's weights (1 copy)"), m);
    assertTrue(m.contains("--driver-memory"), m);
  }
}
