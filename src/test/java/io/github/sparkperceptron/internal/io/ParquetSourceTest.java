package io.github.sparkperceptron.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ParquetSourceTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static final ReadSpec LABELLED = ReadSpec.labelled();
  private static final StructType VECTORS = new StructType(new StructField[] {
      DataTypes.createStructField("id", DataTypes.StringType, true),
      DataTypes.createStructField("label", DataTypes.IntegerType, true),
      DataTypes.createStructField("features", SQLDataTypes.VectorType(), true)});
  private static final StructType COLUMNS = new StructType(new StructField[] {
      DataTypes.createStructField("y", DataTypes.DoubleType, true),
      DataTypes.createStructField("a", DataTypes.FloatType, true),
      DataTypes.createStructField("b", DataTypes.LongType, true),
      DataTypes.createStructField("name", DataTypes.StringType, true)});

  @TempDir
  Path tmp;

  /** Writes rows as one Parquet file, in order, so that row indices are known. */
  private Path parquet(String name, StructType schema, Object[]... rows) {
    Path p = tmp.resolve(name);
    TestData.rows(SPARK, schema, rows).coalesce(1).write().parquet(p.toString());
    return p;
  }

  private BadInputException fails(Path p, ReadSpec spec) {
    return assertThrows(BadInputException.class,
        () -> ParquetSource.read(SPARK, p.toString(), spec, "training data (--train)"));
  }

  /** The single part file of a directory written by {@link #parquet}. */
  private static String partFile(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".parquet")).findFirst()
          .orElseThrow().toString();
    }
  }

  @Test
  void readsAVectorColumnAndAnIntegerLabel() {
    Path p = parquet("v", VECTORS, new Object[] {"a", 1, Vectors.dense(1, 2)},
        new Object[] {"b", 0, Vectors.sparse(2, new int[] {1}, new double[] {3})});
    LabeledData data = ParquetSource.read(SPARK, p.toString(), LABELLED, "training data");
    assertEquals(2, data.numFeatures());
    List<Row> rows = data.frame().collectAsList();
    assertEquals(List.of("label", "features"), Arrays.asList(data.frame().columns()));
    assertEquals(1.0, rows.get(0).getDouble(0), 0.0);
    assertEquals(Vectors.dense(1, 2), rows.get(0).get(1));
    assertEquals(Vectors.sparse(2, new int[] {1}, new double[] {3}), rows.get(1).get(1));
  }

  @Test
  void assemblesNumericColumnsOfAnyNumberType() {
    Path p = parquet("c", COLUMNS, new Object[] {-1.0, 1.5f, 2L, "x"},
        new Object[] {1.0, 0f, 7L, "y"});
    LabeledData data = ParquetSource.read(SPARK, p.toString(),
        LABELLED.withLabelCol("y").withFeatureCols(List.of("b", "a")), "training data");
    List<Row> rows = data.frame().collectAsList();
    assertEquals(0.0, rows.get(0).getDouble(0), 0.0, "-1/+1 labels are mapped to 0/1");
    assertEquals(Vectors.dense(2, 1.5), rows.get(0).get(1));
    assertEquals(Vectors.dense(7, 0), rows.get(1).get(1));
    assertEquals(LabelCheck.MAPPED_NOTE, data.labelNote());
  }

  @Test
  void columnNamesAreTakenLiterally() {
    StructType dotted = new StructType(new StructField[] {
        DataTypes.createStructField("the.label", DataTypes.DoubleType, true),
        DataTypes.createStructField("x.1", DataTypes.DoubleType, true)});
    Path p = parquet("dotted", dotted, new Object[] {1.0, 2.5});
    LabeledData data = ParquetSource.read(SPARK, p.toString(),
        LABELLED.withLabelCol("the.label").withFeatureCols(List.of("x.1")), "training data");
    Row row = data.frame().collectAsList().get(0);
    assertEquals(1.0, row.getDouble(0), 0.0);
    assertEquals(Vectors.dense(2.5), row.get(1));
  }

  @Test
  void typeErrorsNameTheColumn() {
    Path p = parquet("t", COLUMNS, new Object[] {1.0, 1f, 1L, "x"});
    assertTrue(fails(p, LABELLED.withLabelCol("name").withFeatureCols(List.of("a")))
        .getMessage().startsWith("Column 'name' (--label-col) has type string, not a number"));
    assertTrue(fails(p, LABELLED.withLabelCol("y").withFeatureCols(List.of("a", "name")))
        .getMessage().startsWith("Column 'name' (--feature-cols) has type string, not a number"));
    assertTrue(fails(p, LABELLED.withLabelCol("y")).getMessage()
        .startsWith("There is no feature vector column 'features' (--features-col); the columns"
            + " are [y, a, b, name]"));
    assertTrue(fails(p, LABELLED.withLabelCol("y").withFeaturesCol("a")).getMessage()
        .startsWith("Column 'a' (--features-col) has type float, not a Spark ML vector"));
    assertTrue(fails(p, LABELLED.withFeatureCols(List.of("a"))).getMessage()
        .startsWith("There is no label column 'label' (--label-col)"));
  }

  @Test
  void badRowsAreReportedWithFileAndRow() throws IOException {
    Object[][] cases = {
        {new Object[] {"a", 1, Vectors.dense(1, Double.NaN)},
            "column 'features' has NaN at feature index 1, not a finite number"},
        {new Object[] {"a", null, Vectors.dense(1, 2)}, "column 'label' is null"},
        {new Object[] {"a", 1, null}, "column 'features' is null"},
        {new Object[] {"a", 1, Vectors.dense(1, 2, 3)},
            "column 'features' holds a vector of size 3, but earlier rows have 2 features"},
        {new Object[] {"a", -3, Vectors.dense(1, 2)},
            "column 'label' has -3.0, which is not a class index"},
    };
    for (int i = 0; i < cases.length; i++) {
      Path p = parquet("bad" + i, VECTORS, new Object[] {"ok", 0, Vectors.dense(0, 1)},
          (Object[]) cases[i][0]);
      BadInputException e = fails(p, LABELLED);
      assertTrue(e.getMessage().startsWith(partFile(p) + ", row 2: " + cases[i][1]),
          e.getMessage());
    }
    Path wide = parquet("wide", VECTORS, new Object[] {"a", 1, Vectors.dense(1, 2)});
    BadInputException e = fails(wide, LABELLED.withNumFeatures(3, "the model"));
    assertTrue(e.getMessage().startsWith(partFile(wide) + ", row 1: column 'features' holds a"
        + " vector of size 2, but the model has 3 features"), e.getMessage());
    Path classes = parquet("classes", VECTORS, new Object[] {"a", 3, Vectors.dense(1, 2)});
    e = fails(classes, LABELLED.withNumClasses(3));
    assertTrue(e.getMessage().contains("row 1: column 'label' has 3.0, which is not a class of"
        + " the model, which has 3 classes (0..2)"), e.getMessage());
  }

  @Test
  void notParquetIsBadInput() throws IOException {
    Path p = tmp.resolve("text.parquet");
    Files.writeString(p, "label,x\n1,2\n");
    BadInputException e = fails(p, LABELLED);
    assertTrue(e.getMessage().startsWith("Cannot read the training data (--train) '" + p
        + "' as Parquet: "), e.getMessage());
  }

  @Test
  void forPredictionsKeepsEveryColumnUnchecked() {
    Path p = parquet("p", COLUMNS, new Object[] {null, 1f, 2L, "x"});
    LabeledData data = ParquetSource.read(SPARK, p.toString(), LABELLED.withLabelCol("y")
        .withFeatureCols(List.of("a", "b")).withLabelsPassedThrough(), "input");
    assertEquals(List.of("y", "a", "b", "name"), data.inputColumns());
    Row row = data.frame().collectAsList().get(0);
    assertTrue(row.isNullAt(0), "a missing label is fine for predictions");
    assertEquals(Vectors.dense(1, 2), (Vector) row.getAs(data.featuresCol()));
  }
}
