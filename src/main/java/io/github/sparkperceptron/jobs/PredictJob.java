package io.github.sparkperceptron.jobs;

import static org.apache.spark.sql.functions.col;

import io.github.sparkperceptron.internal.io.BadInputException;
import io.github.sparkperceptron.internal.io.LabeledData;
import io.github.sparkperceptron.internal.io.ReadSpec;
import io.github.sparkperceptron.internal.io.ReaderSupport;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.spark.ml.functions;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code submit/predict}: scores a file with a saved {@link PerceptronClassificationModel} and
 * writes the input's columns with the model's {@code prediction}, {@code rawPrediction} and
 * {@code probability} (the class probabilities of its calibrator; a model saved before
 * calibration existed gives the uncalibrated link, as it loads with calibration=none).
 */
@Command(name = "predict", sortOptions = false, mixinStandardHelpOptions = true,
    versionProvider = JobVersion.class,
    description = "Score data with a saved perceptron model; write each input row with its"
        + " prediction, raw prediction and class probabilities.",
    footer = {"", "LIBSVM input gives the columns label and features; CSV and Parquet input keep"
        + " every input column. In CSV and JSON output, vectors (rawPrediction, probability,"
        + " features) are"
        + " arrays of doubles; Parquet output keeps them as Spark ML vectors.",
        "Spark options (--master, --conf, --properties-file, --driver-memory, ...) go to"
        + " spark-submit; the default master is local[*].",
        "Exit codes: 0 success, 2 bad usage or bad input, 1 any other failure."})
public final class PredictJob implements Callable<Integer> {
  /** The output formats. */
  enum OutputFormat { parquet, csv, json }

  static final String PREDICTION = "prediction";
  static final String RAW_PREDICTION = "rawPrediction";
  static final String PROBABILITY = "probability";

  @Option(names = "--model", required = true, paramLabel = "DIR",
      description = "a model saved by submit/train (or PerceptronClassificationModel.save)")
  String modelPath;

  @Option(names = "--input", required = true, paramLabel = "PATH",
      description = "data to score: a file, directory or glob; local, file:// or hdfs://")
  String inputPath;

  @Option(names = "--output", required = true, paramLabel = "PATH",
      description = "the directory to write the predictions to (Spark part files)")
  String outputPath;

  @Mixin
  InputOptions input;

  @Option(names = "--output-format", paramLabel = "FORMAT", defaultValue = "parquet",
      description = "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})")
  OutputFormat outputFormat;

  @Option(names = "--overwrite", description = "replace an existing output")
  boolean overwrite;

  @Mixin
  JobConfOption jobConf;

  @Spec
  CommandSpec spec;

  public static void main(String[] args) {
    System.exit(JobSupport.run(new PredictJob(), args));
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    ReadSpec columns = input.spec();
    // What needs no Spark first: a mistyped path is reported before Spark's start-up.
    new StartChecks().output(outputPath, overwrite, "--output").model(modelPath)
        .input(inputPath, "input data (--input)");
    SparkSession spark = JobSupport.session("spark-perceptron predict");
    ModelOutput output = new ModelOutput(spark.sparkContext().hadoopConfiguration());
    output.checkWritable(outputPath, overwrite, "--output");

    PerceptronClassificationModel model = SavedModel.load(spark, modelPath);
    LabeledData data = input.format.read(spark, inputPath,
        columns.withNumFeatures(model.numFeatures(), "the model").withLabelsPassedThrough(),
        "input data (--input)");
    SavedModel.requireSameWidth(model, data, "input data (--input)");
    for (String taken : new String[] {PREDICTION, RAW_PREDICTION, PROBABILITY}) {
      if (data.inputColumns().contains(taken)) {
        throw new BadInputException("The input data (--input) already have a column '" + taken
            + "', which the predictions would overwrite; rename or drop it first");
      }
    }

    model.setFeaturesCol(data.featuresCol()).setPredictionCol(PREDICTION)
        .setRawPredictionCol(RAW_PREDICTION).setProbabilityCol(PROBABILITY);
    List<Column> kept = new ArrayList<>();
    for (String c : data.inputColumns()) {
      kept.add(ReaderSupport.column(c));
    }
    kept.add(col(PREDICTION));
    kept.add(col(RAW_PREDICTION));
    kept.add(col(PROBABILITY));
    Dataset<Row> predictions = model.transform(data.frame()).select(kept.toArray(new Column[0]));
    Dataset<Row> written = forOutput(predictions, outputFormat);

    String temporary = output.temporarySibling(outputPath);
    try {
      written.write().format(outputFormat.name()).option("header", "true").save(temporary);
      output.commit(temporary, outputPath);
    } catch (RuntimeException e) {
      output.discard(temporary);
      throw e;
    }
    out.printf("Predictions of %s (%d classes, %d features) written to %s (%s)%n", modelPath,
        model.numClasses(), model.numFeatures(), outputPath, outputFormat);
    out.flush();
    return JobFailure.OK;
  }

  /**
   * The predictions in a shape the format can hold: CSV and JSON have no vector type, so vectors
   * become arrays of doubles; CSV has no nested types at all, so arrays, structs and maps become
   * JSON text.
   */
  static Dataset<Row> forOutput(Dataset<Row> predictions, OutputFormat format) {
    if (format == OutputFormat.parquet) {
      return predictions;
    }
    List<Column> columns = new ArrayList<>();
    for (StructField f : predictions.schema().fields()) {
      Column c = ReaderSupport.column(f.name());
      DataType type = f.dataType();
      if (type.equals(SQLDataTypes.VectorType())) {
        c = functions.vector_to_array(c, "float64");
        type = DataTypes.createArrayType(DataTypes.DoubleType);
      }
      if (format == OutputFormat.csv && (type instanceof ArrayType || type instanceof StructType
          || type instanceof MapType)) {
        c = org.apache.spark.sql.functions.to_json(c);
      }
      columns.add(c.as(f.name()));
    }
    return predictions.select(columns.toArray(new Column[0]));
  }
}
