package io.github.sparkperceptron.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LibSvmSourceTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();

  @TempDir
  Path tmp;

  private Path file(String name, String... lines) {
    return TestData.textFile(tmp, name, lines);
  }

  @Test
  void readsTheSharedDataLikeAnIndependentReader() {
    Path path = TestData.sharedData("spark_sample_libsvm", "train.libsvm");
    LabeledData data = LibSvmSource.read(SPARK, path.toString(), -1, "training data");
    assertEquals(692, data.numFeatures());
    List<TestData.Example> expected = TestData.readLibSvm(path, 692);
    List<Row> rows = data.frame().collectAsList();
    assertEquals(expected.size(), rows.size());
    for (int i = 0; i < rows.size(); i++) {
      assertEquals(expected.get(i).label, rows.get(i).getDouble(0), 0.0);
      assertEquals(expected.get(i).features, (Vector) rows.get(i).get(1));
    }
    assertEquals("", data.labelNote());
  }

  @Test
  void mapsPlusMinusOneLabelsToZeroOne() throws IOException {
    Path p = file("pm.libsvm", "+1 1:1", "-1 2:1", "1 1:3");
    LabeledData data = LibSvmSource.read(SPARK, p.toString(), -1, "training data");
    List<Row> rows = data.frame().collectAsList();
    assertEquals(1.0, rows.get(0).getDouble(0), 0.0);
    assertEquals(0.0, rows.get(1).getDouble(0), 0.0);
    assertEquals(1.0, rows.get(2).getDouble(0), 0.0);
    assertTrue(data.labelNote().contains("-1/+1"));
  }

  @Test
  void badLinesAreReportedAsFileAndLine() throws IOException {
    Path p = file("bad.libsvm", "1 1:1", "# comment", "", "0 2:x", "1 1:1");
    BadInputException e = assertThrows(BadInputException.class,
        () -> LibSvmSource.read(SPARK, p.toString(), -1, "training data (--train)"));
    assertTrue(e.getMessage().startsWith(p + ":4: value 'x' of feature 2 is not a number"),
        e.getMessage());
    assertTrue(e.getMessage().contains("training data (--train)"));
  }

  @Test
  void oddLabelsAreReportedWithTheirLine() throws IOException {
    Path p = file("labels.libsvm", "0 1:1", "1 1:2", "-1 1:3");
    BadInputException e = assertThrows(BadInputException.class,
        () -> LibSvmSource.read(SPARK, p.toString(), -1, "training data"));
    assertTrue(e.getMessage().startsWith(p + ":3: label -1.0 is not a class index"),
        e.getMessage());
    Path q = file("fraction.libsvm", "0 1:1", "0.5 1:2");
    e = assertThrows(BadInputException.class,
        () -> LibSvmSource.read(SPARK, q.toString(), -1, "training data"));
    assertTrue(e.getMessage().startsWith(q + ":2: label 0.5"), e.getMessage());
  }

  @Test
  void indicesBeyondTheGivenWidthAreReported() throws IOException {
    Path p = file("wide.libsvm", "0 1:1", "1 5:1");
    BadInputException e = assertThrows(BadInputException.class,
        () -> LibSvmSource.read(SPARK, p.toString(), 4, "test data (--test)"));
    assertTrue(e.getMessage().startsWith(p + ":2: feature index 5 exceeds the 4 features"),
        e.getMessage());
  }

  @Test
  void missingEmptyAndCommentOnlyInputsAreReported() throws IOException {
    BadInputException missing = assertThrows(BadInputException.class,
        () -> LibSvmSource.read(SPARK, tmp.resolve("nope").toString(), -1, "training data"));
    assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());
    Path empty = file("empty.libsvm");
    BadInputException noBytes = assertThrows(BadInputException.class,
        () -> LibSvmSource.read(SPARK, empty.toString(), -1, "training data"));
    assertTrue(noBytes.getMessage().contains("holds no data"), noBytes.getMessage());
    Path comments = file("comments.libsvm", "# nothing", "");
    BadInputException noRows = assertThrows(BadInputException.class,
        () -> LibSvmSource.read(SPARK, comments.toString(), -1, "training data"));
    assertTrue(noRows.getMessage().contains("hold no examples"), noRows.getMessage());
  }
}
