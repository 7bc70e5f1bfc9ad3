package io.github.sparkperceptron.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvSourceTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static final ReadSpec LABELLED = ReadSpec.labelled();

  @TempDir
  Path tmp;

  private Path file(String name, String... lines) {
    return TestData.textFile(tmp, name, lines);
  }

  private BadInputException fails(Path p, ReadSpec spec) {
    return assertThrows(BadInputException.class,
        () -> CsvSource.read(SPARK, p.toString(), spec, "training data (--train)"));
  }

  @Test
  void readsLabelAndEveryOtherColumnAsFeatures() throws IOException {
    Path p = file("a.csv", "x1,label,x2", "0.5,1,2", "", "-1,0,\"3e1\"");
    LabeledData data = CsvSource.read(SPARK, p.toString(), LABELLED, "training data");
    assertEquals(2, data.numFeatures());
    List<Row> rows = data.frame().collectAsList();
    assertEquals(2, rows.size());
    assertEquals(1.0, rows.get(0).getDouble(0), 0.0);
    assertEquals(Vectors.dense(0.5, 2), rows.get(0).get(1));
    assertEquals(0.0, rows.get(1).getDouble(0), 0.0);
    assertEquals(Vectors.dense(-1, 30), rows.get(1).get(1));
    assertEquals(List.of("label", "features"), List.of(data.frame().columns()));
  }

  @Test
  void namedFeatureColumnsSetTheVectorOrderAndSkipTheRest() throws IOException {
    Path p = file("b.csv", "id,y,a,b,c", "\"r,1\",1,1,2,3", "r2,0,4,5,6");
    LabeledData data = CsvSource.read(SPARK, p.toString(),
        LABELLED.withLabelCol("y").withFeatureCols(List.of("c", "a")), "training data");
    List<Row> rows = data.frame().collectAsList();
    assertEquals(Vectors.dense(3, 1), rows.get(0).get(1));
    assertEquals(Vectors.dense(6, 4), rows.get(1).get(1));
  }

  @Test
  void mapsPlusMinusOneLabels() throws IOException {
    Path p = file("pm.csv", "label,x", "-1,1", "+1,2", "1,3");
    LabeledData data = CsvSource.read(SPARK, p.toString(), LABELLED, "training data");
    List<Row> rows = data.frame().collectAsList();
    assertEquals(0.0, rows.get(0).getDouble(0), 0.0);
    assertEquals(1.0, rows.get(1).getDouble(0), 0.0);
    assertEquals(LabelCheck.MAPPED_NOTE, data.labelNote());
  }

  @Test
  void badCellsAreReportedWithFileLineAndColumn() throws IOException {
    String[][] cases = {
        {"0,1\n1,abc\n", ":3: column 'x' has 'abc', not a number"},
        {"0,1\n1,\n", ":3: column 'x' is empty"},
        {"0,1\n1,NaN\n", ":3: column 'x' has 'NaN', not a finite number"},
        {"0,1\n1,-inf\n", ":3: column 'x' has '-inf', not a number"},
        {"0,1\n1,2,3\n", ":3: the line has 3 fields, but the header row has 2 columns"},
        {"0,1\n1\n", ":3: the line has 1 fields, but the header row has 2 columns"},
        {"0,1\n\"1,2\n", ":3: the quoted field 1 is not closed"},
        {"0,1\n0.5,2\n", ":3: column 'label' has 0.5, which is not a class index"},
        {"0,1\n-2,2\n", ":3: column 'label' has -2, which is not a class index"},
        {"0,1\r\n\r\n1,x\r\n", ":4: column 'x' has 'x', not a number"},
    };
    for (int i = 0; i < cases.length; i++) {
      Path p = tmp.resolve("bad" + i + ".csv");
      Files.writeString(p, "label,x\n" + cases[i][0]);
      BadInputException e = fails(p, LABELLED);
      assertTrue(e.getMessage().startsWith(p + cases[i][1]), e.getMessage());
      assertTrue(e.getMessage().contains("(training data (--train), CSV format"), e.getMessage());
    }
  }

  @Test
  void labelsBeyondTheModelsClassesAreReported() throws IOException {
    Path p = file("k.csv", "label,x", "0,1", "2,1");
    BadInputException e = fails(p, LABELLED.withNumClasses(2));
    assertTrue(e.getMessage().startsWith(p + ":3: column 'label' has 2, which is not a class of"
        + " the model, which has 2 classes (0..1)"), e.getMessage());
  }

  @Test
  void headerProblemsAreReportedAtLineOne() throws IOException {
    Object[][] cases = {
        {"x1,x2", LABELLED, ":1: the header row has no label column 'label' (--label-col);"
            + " its columns are [x1, x2]"},
        {"label,x1", LABELLED.withFeatureCols(List.of("x9")),
            ":1: the header row has no feature column 'x9' (--feature-cols)"},
        {"label,x,x", LABELLED, ":1: the header row names column 'x' twice"},
        {"label,,x", LABELLED, ":1: column 2 of the header row has no name"},
        {"label", LABELLED, ":1: the header row has no column besides the label 'label'"},
        {"label,a,b", LABELLED.withNumFeatures(3, "the model"),
            ":1: there are 2 feature columns, but the model has 3 features"},
        {"label,a", LABELLED.withFeatureCols(List.of("label")),
            ":1: column 'label' is the label (--label-col) and may not also be a feature"},
    };
    for (int i = 0; i < cases.length; i++) {
      Path p = file("h" + i + ".csv", (String) cases[i][0], "1,2,3");
      BadInputException e = fails(p, (ReadSpec) cases[i][1]);
      assertTrue(e.getMessage().startsWith(p + (String) cases[i][2]), e.getMessage());
    }
  }

  @Test
  void everyFileOfADirectoryNeedsTheSameHeader() throws IOException {
    file("dir/part-1.csv", "label,x", "0,1");
    file("dir/part-2.csv", "label,y", "1,1");
    BadInputException e = fails(tmp.resolve("dir"), LABELLED);
    assertTrue(e.getMessage().contains(":1: the header row differs from that of "),
        e.getMessage());
    file("ok/part-1.csv", "label,x", "0,1");
    file("ok/part-2.csv", "label,x", "1,2", "1,3");
    LabeledData same = CsvSource.read(SPARK, tmp.resolve("ok").toString(), LABELLED, "training data");
    assertEquals(3, same.frame().count());
  }

  @Test
  void headerOnlyAndEmptyInputsHoldNoExamples() throws IOException {
    Path header = file("header.csv", "label,x", "");
    assertTrue(fails(header, LABELLED).getMessage().contains("hold no examples"));
    Path empty = file("empty.csv");
    assertTrue(fails(empty, LABELLED).getMessage().contains("holds no data"));
  }

  @Test
  void forPredictionsKeepsEveryColumnAndNeedsNoLabel() throws IOException {
    Path p = file("p.csv", "id,features,a,b", "r1,note,1,2", "r2,,3,4");
    LabeledData data = CsvSource.read(SPARK, p.toString(), LABELLED.withFeatureCols(
        List.of("a", "b")).withNumFeatures(2, "the model").withLabelsPassedThrough(), "input");
    assertEquals(List.of("id", "features", "a", "b"), data.inputColumns());
    assertEquals("_features", data.featuresCol(), "the vector column may not hide an input column");
    List<Row> rows = data.frame().collectAsList();
    assertEquals("r1", rows.get(0).getString(0));
    assertEquals("note", rows.get(0).getString(1));
    assertEquals(1.0, rows.get(0).getDouble(2), 0.0);
    assertEquals(Vectors.dense(3, 4), rows.get(1).get(4));
    assertTrue(rows.get(1).isNullAt(1), "an empty text cell is null");
  }
}
