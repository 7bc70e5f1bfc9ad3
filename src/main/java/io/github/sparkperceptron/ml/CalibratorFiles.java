package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.internal.calibration.CalibrationMethod;
import io.github.sparkperceptron.internal.calibration.Calibrator;
import io.github.sparkperceptron.internal.calibration.IsotonicSteps;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Saves and loads a model's {@link Calibrator} beside its {@code data/}: {@code calibration/},
 * Parquet, one row per step function (an isotonic calibrator: one for a binary model, one per
 * class otherwise) or a single row (none, sigmoid):
 *
 * <pre>
 * index INT, method STRING (none | sigmoid | isotonic), numClasses INT,
 * parameters ARRAY&lt;DOUBLE&gt; (binary none/sigmoid: A, B of 1/(1 + e^{A·m + B}); K classes: a = 1/T),
 * boundaries ARRAY&lt;DOUBLE&gt;, values ARRAY&lt;DOUBLE&gt; (isotonic: the kept scores, increasing, and
 *   their fitted probabilities; else empty)
 * </pre>
 *
 * Part of format version 2 ({@link ModelFiles}); every value is checked when read, so that a
 * damaged directory is refused with a message rather than scoring with a wrong map.
 */
final class CalibratorFiles {
  private CalibratorFiles() {
  }

  static final String DIRECTORY = "calibration";

  private static final StructType SCHEMA = new StructType(new StructField[] {
      DataTypes.createStructField("index", DataTypes.IntegerType, false),
      DataTypes.createStructField("method", DataTypes.StringType, false),
      DataTypes.createStructField("numClasses", DataTypes.IntegerType, false),
      DataTypes.createStructField("parameters",
          DataTypes.createArrayType(DataTypes.DoubleType, false), false),
      DataTypes.createStructField("boundaries",
          DataTypes.createArrayType(DataTypes.DoubleType, false), false),
      DataTypes.createStructField("values",
          DataTypes.createArrayType(DataTypes.DoubleType, false), false)});

  static void save(SparkSession spark, Calibrator calibrator, String modelPath) {
    List<Row> rows = new ArrayList<>();
    String method = calibrator.method().paramValue();
    IsotonicSteps[] steps = calibrator.steps();
    double[] none = new double[0];
    if (steps.length == 0) {
      rows.add(RowFactory.create(0, method, calibrator.numClasses(),
          VoteFiles.boxed(calibrator.parameters()), VoteFiles.boxed(none),
          VoteFiles.boxed(none)));
    }
    for (int i = 0; i < steps.length; i++) {
      rows.add(RowFactory.create(i, method, calibrator.numClasses(), VoteFiles.boxed(none),
          VoteFiles.boxed(steps[i].boundaries()), VoteFiles.boxed(steps[i].values())));
    }
    spark.createDataFrame(rows, SCHEMA).repartition(1).write()
        .parquet(new Path(modelPath, DIRECTORY).toString());
  }

  /**
   * The calibrator saved under {@code modelPath} for a {@code numClasses}-class model.
   *
   * @throws IllegalArgumentException when it is missing or does not describe a calibrator
   */
  static Calibrator load(SparkSession spark, String modelPath, int numClasses) {
    Path dir = new Path(modelPath, DIRECTORY);
    if (!ModelFiles.exists(spark, dir)) {
      throw damaged(modelPath, "it is missing, although the model's format version (2 or"
          + " later) has one");
    }
    List<Row> rows;
    try {
      rows = spark.read().parquet(dir.toString()).selectExpr("index", "method", "numClasses",
          "parameters", "boundaries", "values").orderBy("index").collectAsList();
    } catch (Exception e) { // also the checked exceptions Scala code throws undeclared
      throw damaged(modelPath, ModelFiles.firstLine(e));
    }
    if (rows.isEmpty()) {
      throw damaged(modelPath, "it holds no row");
    }
    CalibrationMethod method;
    try {
      method = CalibrationMethod.fromParam(rows.get(0).getString(1));
    } catch (IllegalArgumentException e) {
      throw damaged(modelPath, e.getMessage());
    }
    int expectedRows = method != CalibrationMethod.ISOTONIC ? 1 : numClasses == 2 ? 1
        : numClasses;
    if (rows.size() != expectedRows) {
      throw damaged(modelPath, rows.size() + " rows where a " + method.paramValue()
          + " calibrator of " + numClasses + " classes has " + expectedRows);
    }
    for (int i = 0; i < rows.size(); i++) {
      Row r = rows.get(i);
      if (r.getInt(0) != i || !r.getString(1).equals(method.paramValue())
          || r.getInt(2) != numClasses) {
        throw damaged(modelPath, "row " + i + " does not belong to a " + method.paramValue()
            + " calibrator of this " + numClasses + "-class model");
      }
    }
    try {
      return build(method, numClasses, rows);
    } catch (IllegalArgumentException e) {
      throw damaged(modelPath, e.getMessage());
    }
  }

  private static Calibrator build(CalibrationMethod method, int numClasses, List<Row> rows) {
    if (method == CalibrationMethod.ISOTONIC) {
      IsotonicSteps[] steps = new IsotonicSteps[rows.size()];
      for (int i = 0; i < steps.length; i++) {
        steps[i] = new IsotonicSteps(VoteFiles.doubles(rows.get(i).getList(4)),
            VoteFiles.doubles(rows.get(i).getList(5)));
      }
      return Calibrator.isotonic(numClasses, steps);
    }
    double[] p = VoteFiles.doubles(rows.get(0).getList(3));
    if (p.length != (numClasses == 2 ? 2 : 1)) {
      throw new IllegalArgumentException(p.length + " parameters where a " + numClasses
          + "-class " + method.paramValue() + " calibrator has " + (numClasses == 2 ? 2 : 1));
    }
    if (method == CalibrationMethod.SIGMOID) {
      return numClasses == 2 ? Calibrator.sigmoid(p[0], p[1])
          : Calibrator.temperature(numClasses, p[0]);
    }
    Calibrator none = Calibrator.none(numClasses);
    if (!Arrays.equals(none.parameters(), p)) {
      throw new IllegalArgumentException("calibration none with the parameters "
          + Arrays.toString(p) + " instead of " + Arrays.toString(
          none.parameters()));
    }
    return none;
  }

  private static IllegalArgumentException damaged(String modelPath, String why) {
    return new IllegalArgumentException("'" + new Path(modelPath, DIRECTORY) + "' does not hold"
        + " a readable calibrator (" + why + "); the model directory is damaged or was written"
        + " by another program");
  }
}
