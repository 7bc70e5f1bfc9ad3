package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.attribute.NominalAttribute;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Every bad input is refused before training, with a message naming column, value and fix. */
class InputValidationTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();

  private static final StructType WEIGHTED = new StructType(new StructField[] {
      DataTypes.createStructField("label", DataTypes.DoubleType, true),
      DataTypes.createStructField("features", SQLDataTypes.VectorType(), true),
      DataTypes.createStructField("w", DataTypes.DoubleType, true)});

  private static Dataset<Row> rows(Object[]... rows) {
    return TestData.rows(SPARK, WEIGHTED, rows).repartition(2);
  }

  private static Object[] row(Double label, Vector features, Double weight) {
    return new Object[] {label, features, weight};
  }

  private static Dataset<Row> goodPlus(Object[] bad) {
    return rows(row(0.0, Vectors.dense(1, 2), 1.0), row(1.0, Vectors.dense(-1, 0), 1.0), bad);
  }

  private static void assertMessage(Executable fit, Class<? extends Throwable> type,
      String... fragments) {
    Throwable e = assertThrows(type, fit);
    for (String f : fragments) {
      assertTrue(e.getMessage().contains(f), "message lacks '" + f + "': " + e.getMessage());
    }
  }

  private static PerceptronClassifier clf() {
    return new PerceptronClassifier().setMaxIter(2);
  }

  @Test
  void missingColumns() {
    Dataset<Row> data = goodPlus(row(0.0, Vectors.dense(1, 1), 1.0));
    assertMessage(() -> clf().setLabelCol("target").fit(data), IllegalArgumentException.class,
        "'target'", "labelCol", "[label, features, w]");
    assertMessage(() -> clf().setFeaturesCol("x").fit(data), IllegalArgumentException.class,
        "'x'", "featuresCol");
    assertMessage(() -> clf().setWeightCol("weight").fit(data), IllegalArgumentException.class,
        "'weight'", "weightCol");
  }

  @Test
  void wronglyTypedColumns() {
    Dataset<Row> data = goodPlus(row(0.0, Vectors.dense(1, 1), 1.0))
        .withColumn("text", org.apache.spark.sql.functions.lit("a"))
        .withColumn("array", org.apache.spark.sql.functions.array(
            org.apache.spark.sql.functions.lit(1.0)));
    assertMessage(() -> clf().setLabelCol("text").fit(data), IllegalArgumentException.class,
        "'text'", "string", "numeric", "StringIndexer");
    assertMessage(() -> clf().setFeaturesCol("array").fit(data), IllegalArgumentException.class,
        "'array'", "array<double>", "VectorAssembler");
    assertMessage(() -> clf().setWeightCol("text").fit(data), IllegalArgumentException.class,
        "'text'", "weightCol", "numeric");
  }

  @Test
  void badLabels() {
    assertMessage(() -> clf().fit(goodPlus(row(null, Vectors.dense(1, 1), 1.0))),
        IllegalArgumentException.class, "'label'", "is null", "na().drop");
    assertMessage(() -> clf().fit(goodPlus(row(Double.NaN, Vectors.dense(1, 1), 1.0))),
        IllegalArgumentException.class, "'label'", "NaN");
    assertMessage(() -> clf().fit(goodPlus(row(-1.0, Vectors.dense(1, 1), 1.0))),
        IllegalArgumentException.class, "'label'", "-1.0", "-1/+1", "equalTo(-1)");
    assertMessage(() -> clf().fit(goodPlus(row(0.5, Vectors.dense(1, 1), 1.0))),
        IllegalArgumentException.class, "'label'", "0.5", "StringIndexer");
    assertMessage(() -> clf().fit(goodPlus(row(-3.0, Vectors.dense(1, 1), 1.0))),
        IllegalArgumentException.class, "'label'", "-3.0");
    assertMessage(() -> clf().fit(goodPlus(row(1e6, Vectors.dense(1, 1), 1.0))),
        IllegalArgumentException.class, "'label'", "1000000.0", "10000 classes");
  }

  @Test
  void labelsBeyondTheClassesDeclaredInMetadata() {
    Dataset<Row> data = goodPlus(row(2.0, Vectors.dense(1, 1), 1.0));
    Dataset<Row> declared = data.withColumn("label", data.col("label"),
        NominalAttribute.defaultAttr().withNumValues(2).toMetadata());
    assertMessage(() -> clf().fit(declared), IllegalArgumentException.class, "'label'", "2.0",
        "metadata declares 2 classes");
  }

  @Test
  void badFeatures() {
    assertMessage(() -> clf().fit(goodPlus(row(1.0, null, 1.0))),
        IllegalArgumentException.class, "'features'", "is null");
    assertMessage(() -> clf().fit(goodPlus(row(1.0, Vectors.dense(1, Double.NaN), 1.0))),
        IllegalArgumentException.class, "'features'", "NaN at feature index 1", "Imputer");
    assertMessage(() -> clf().fit(goodPlus(row(1.0, Vectors.sparse(2, new int[] {0},
            new double[] {Double.POSITIVE_INFINITY}), 1.0))),
        IllegalArgumentException.class, "'features'", "Infinity at feature index 0");
    assertMessage(() -> clf().fit(goodPlus(row(1.0, Vectors.dense(1, 2, 3), 1.0))),
        IllegalArgumentException.class, "'features'", "size 3", "same size");
  }

  @Test
  void vectorsOfDifferentSizesInDifferentPartitions() {
    List<Row> list = Arrays.asList(
        RowFactory.create(0.0, Vectors.dense(1, 2), 1.0),
        RowFactory.create(1.0, Vectors.dense(1, 2, 3), 1.0));
    Dataset<Row> data = SPARK.createDataFrame(
        new JavaSparkContext(SPARK.sparkContext()).parallelize(list, 2),
        WEIGHTED);
    assertMessage(() -> clf().fit(data), IllegalArgumentException.class,
        "size 2", "size 3", "same size");
  }

  @Test
  void badWeights() {
    for (double bad : new double[] {-1.0, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertMessage(() -> clf().setWeightCol("w").fit(goodPlus(row(1.0, Vectors.dense(1, 1),
          bad))), IllegalArgumentException.class, "'w'", "weightCol", String.valueOf(bad),
          "finite and >= 0");
    }
    assertMessage(() -> clf().setWeightCol("w").fit(goodPlus(row(1.0, Vectors.dense(1, 1),
        null))), IllegalArgumentException.class, "'w'", "is null");
    assertMessage(() -> clf().setWeightCol("w").fit(rows(row(1.0, Vectors.dense(1, 1), 0.0),
        row(0.0, Vectors.dense(1, 1), 0.0))), IllegalArgumentException.class, "weight is 0");
  }

  @Test
  void emptyDataset() {
    Dataset<Row> empty = goodPlus(row(0.0, Vectors.dense(1, 1), 1.0)).limit(0);
    assertMessage(() -> clf().fit(empty), IllegalArgumentException.class, "empty", "0 rows");
  }

  @Test
  void initialModelOfTheWrongShape() {
    Dataset<Row> data = goodPlus(row(0.0, Vectors.dense(1, 1), 1.0));
    Dataset<Row> wider = rows(row(0.0, Vectors.dense(1, 2, 3), 1.0),
        row(1.0, Vectors.dense(3, 2, 1), 1.0));
    PerceptronClassificationModel model = clf().fit(wider);
    assertMessage(() -> clf().setInitialModel(model).fit(data), IllegalArgumentException.class,
        "initial model", "3 features", "2 features");
  }

  @Test
  void modelAppliedToVectorsOfTheWrongSize() {
    PerceptronClassificationModel model = clf().fit(goodPlus(row(0.0, Vectors.dense(1, 1), 1.0)));
    assertMessage(() -> model.predict(Vectors.dense(1, 2, 3)), IllegalArgumentException.class,
        "size 3", "trained on 2 features");
    Dataset<Row> wider = rows(row(0.0, Vectors.dense(1, 2, 3), 1.0));
    Throwable e = assertThrows(Exception.class,
        () -> model.transform(wider).collectAsList());
    assertTrue(String.valueOf(e.getMessage()).contains("trained on 2 features")
        || String.valueOf(e.getCause()).contains("trained on 2 features"), e.toString());
  }

  @Test
  void badParamValuesAreRefusedWhenSet() {
    assertMessage(() -> clf().setMaxIter(-1), IllegalArgumentException.class, "maxIter", ">= 0",
        "-1");
    assertMessage(() -> clf().setStepSize(0.0), IllegalArgumentException.class, "stepSize",
        "> 0");
    assertMessage(() -> clf().setUpdateRule("mira"), IllegalArgumentException.class,
        "updateRule", "[perceptron, pa, pa1, pa2]", "'mira'");
    assertMessage(() -> clf().setMixing("sum"), IllegalArgumentException.class, "mixing",
        "uniform");
    assertMessage(() -> clf().setAggregationDepth(1), IllegalArgumentException.class,
        "aggregationDepth", ">= 2");
    assertMessage(() -> clf().setThreshold(Double.NaN), IllegalArgumentException.class,
        "threshold", "got NaN");
    assertMessage(() -> clf().setClassWeight("even"), IllegalArgumentException.class,
        "classWeight", "[none, balanced]", "'even'");
    assertMessage(() -> clf().setWeightCol(null), IllegalArgumentException.class,
        "weightCol", "\"\" to unset");
  }

  @Test
  void coefficientsOfAMulticlassModelPointToTheMatrix() {
    PerceptronClassificationModel model = clf().fit(rows(row(0.0, Vectors.dense(1, 0), 1.0),
        row(1.0, Vectors.dense(0, 1), 1.0), row(2.0, Vectors.dense(-1, -1), 1.0)));
    assertMessage(model::coefficients, IllegalStateException.class, "3 classes",
        "coefficientMatrix()");
    assertMessage(model::intercept, IllegalStateException.class, "interceptVector()");
  }
}
