package io.github.sparkperceptron.jobs;

import static org.apache.spark.sql.functions.col;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.evaluation.ProbabilityMetrics;
import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassificationSummary;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * What the jobs report about a model on labelled data: {@link PerceptronClassificationModel#evaluate}
 * on the rows as read (every row weighs 1), printed for the console and written as JSON.
 *
 * <p>The metrics of the predictions come from one pass over the rows, those of the
 * probabilities from a second: the train job's text input from its cached blocks, other input
 * from passes of predictions ({@code model.evaluate}, {@code model.transform}).
 *
 * <p>JSON (the evaluate job's whole file; the train job's {@code train} and {@code test}
 * objects): {@code rows}; {@code accuracy}; {@code logLoss}, {@code brier} and
 * {@code expectedCalibrationError} of the model's probabilities (its calibrator; definitions in
 * {@link ProbabilityMetrics}) and {@code reliability}, the 15 bins of the last (each with its
 * {@code rows}, mean {@code confidence} and {@code accuracy}); for binary models
 * {@code areaUnderROC} and
 * {@code areaUnderPR} of the raw predictions; {@code weightedPrecision}, {@code weightedRecall},
 * {@code weightedFMeasure} (per-class values weighted by each class's share of the rows);
 * {@code classes}, one object per class with {@code label}, {@code support} (rows of that
 * class), {@code precision}, {@code recall} and {@code f1}; {@code confusionMatrix}, rows are true
 * classes and columns predicted classes, in row counts. A metric that is undefined (no rows) is
 * {@code null}.
 */
final class Evaluation {
  final long rows;
  final int numClasses;
  private final PerceptronClassificationSummary summary;
  /** confusion[true][predicted], in rows. */
  private final long[][] confusion;
  /** Log-loss, Brier score, ECE and the reliability bins of the probabilities. */
  final ProbabilityMetrics probabilities;

  private Evaluation(PerceptronClassificationSummary summary, ProbabilityMetrics probabilities) {
    this.summary = summary;
    this.probabilities = probabilities;
    this.rows = summary.numInstances();
    this.numClasses = summary.numClasses();
    Matrix m = summary.confusionMatrix();
    this.confusion = new long[numClasses][numClasses];
    for (int i = 0; i < numClasses; i++) {
      for (int j = 0; j < numClasses; j++) {
        // unweighted: every cell is a whole count, exact in a double below 2^53
        confusion[i][j] = (long) m.apply(i, j);
      }
    }
  }

  /**
   * Evaluates {@code model} on {@code data} (columns {@code label} and {@code features}, as the
   * readers make them), whatever columns and weight column the model was trained with. A binary
   * model's curve areas are computed here rather than when first printed, so that the train job's
   * stage times count them as evaluation.
   */
  static Evaluation of(PerceptronClassificationModel model, Dataset<Row> data) {
    PerceptronClassificationModel asRead = model.copy(new ParamMap()
        .put(model.labelCol(), "label").put(model.featuresCol(), "features")
        .put(model.weightCol(), "").put(model.predictionCol(), "prediction")
        .put(model.rawPredictionCol(), "rawPrediction"));
    PerceptronClassificationSummary summary = asRead.evaluate(data);
    if (summary.numClasses() == 2 && summary.numInstances() > 0) {
      summary.areaUnderROC(); // and areaUnderPR: the summary keeps both from one ranking
    }
    return new Evaluation(summary, probabilities(asRead.transform(data)
        .select(col("label").cast("double"), col(asRead.getProbabilityCol())),
        model.numClasses()));
  }

  /**
   * The probability metrics of (label, probability) rows: one part per partition, merged in
   * partition order (the same rows give the same bits).
   */
  private static ProbabilityMetrics probabilities(Dataset<Row> rows, int numClasses) {
    List<ProbabilityMetrics> parts = rows.javaRDD().mapPartitions(it -> {
      ProbabilityMetrics m = new ProbabilityMetrics(numClasses);
      while (it.hasNext()) {
        Row r = it.next();
        m.add(((Vector) r.get(1)).toArray(), (int) r.getDouble(0), 1.0);
      }
      return Collections.singletonList(m).iterator();
    }).collect();
    ProbabilityMetrics all = new ProbabilityMetrics(numClasses);
    for (ProbabilityMetrics part : parts) {
      all.merge(part);
    }
    return all;
  }

  /**
   * Evaluates {@code model} on cached blocks (the one-pass reading of text files): every metric
   * in one pass over them.
   */
  static Evaluation of(PerceptronClassificationModel model, TrainingInput data) {
    return new Evaluation(EngineBridge.evaluate(model, data),
        EngineBridge.probabilityMetrics(model, data));
  }

  double accuracy() {
    return summary.accuracy();
  }

  private long support(int k) {
    long actual = 0;
    for (long c : confusion[k]) {
      actual += c;
    }
    return actual;
  }

  void writeTo(ObjectNode node) {
    node.put("rows", rows);
    Json.putNumber(node, "accuracy", accuracy());
    Json.putNumber(node, "logLoss", probabilities.logLoss());
    Json.putNumber(node, "brier", probabilities.brier());
    Json.putNumber(node, "expectedCalibrationError", probabilities.expectedCalibrationError());
    if (numClasses == 2 && rows > 0) {
      Json.putNumber(node, "areaUnderROC", summary.areaUnderROC());
      Json.putNumber(node, "areaUnderPR", summary.areaUnderPR());
    }
    Json.putNumber(node, "weightedPrecision", rows == 0 ? Double.NaN
        : summary.weightedPrecision());
    Json.putNumber(node, "weightedRecall", rows == 0 ? Double.NaN : summary.weightedRecall());
    Json.putNumber(node, "weightedFMeasure", rows == 0 ? Double.NaN
        : summary.weightedFMeasure());
    double[] precision = summary.precisionByLabel();
    double[] recall = summary.recallByLabel();
    double[] f1 = summary.fMeasureByLabel();
    ArrayNode classes = node.putArray("classes");
    for (int k = 0; k < numClasses; k++) {
      ObjectNode c = classes.addObject();
      c.put("label", k);
      c.put("support", support(k));
      Json.putNumber(c, "precision", precision[k]);
      Json.putNumber(c, "recall", recall[k]);
      Json.putNumber(c, "f1", f1[k]);
    }
    ArrayNode matrix = node.putArray("confusionMatrix");
    for (long[] row : confusion) {
      ArrayNode r = matrix.addArray();
      for (long c : row) {
        r.add(c);
      }
    }
    ArrayNode bins = node.putArray("reliability");
    double[] weights = probabilities.binWeights();
    double[] confidence = probabilities.binConfidences();
    double[] accuracy = probabilities.binAccuracies();
    for (int b = 0; b < weights.length; b++) {
      ObjectNode bin = bins.addObject();
      bin.put("rows", (long) weights[b]);
      Json.putNumber(bin, "confidence", confidence[b]);
      Json.putNumber(bin, "accuracy", accuracy[b]);
    }
  }

  /** A few lines for the console. */
  String describe(String name) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%s: accuracy %.4f on %,d rows", name, accuracy(), rows));
    if (numClasses == 2 && rows > 0) {
      sb.append(String.format(Locale.ROOT, ", areaUnderROC %.4f", summary.areaUnderROC()));
    }
    sb.append('\n');
    if (rows > 0) {
      sb.append(String.format(Locale.ROOT, "  probabilities: log-loss %.4f, Brier %.4f,"
          + " expected calibration error %.4f%n", probabilities.logLoss(), probabilities.brier(),
          probabilities.expectedCalibrationError()));
    }
    double[] precision = summary.precisionByLabel();
    double[] recall = summary.recallByLabel();
    double[] f1 = summary.fMeasureByLabel();
    sb.append(String.format(Locale.ROOT, "  %-8s %9s %9s %9s %9s%n", "class", "precision",
        "recall", "f1", "support"));
    for (int k = 0; k < numClasses; k++) {
      sb.append(String.format(Locale.ROOT, "  %-8d %9.4f %9.4f %9.4f %9d%n", k, precision[k],
          recall[k], f1[k], support(k)));
    }
    if (rows > 0) {
      sb.append(String.format(Locale.ROOT, "  %-8s %9.4f %9.4f %9.4f %9d%n", "weighted",
          summary.weightedPrecision(), summary.weightedRecall(), summary.weightedFMeasure(),
          rows));
    }
    sb.append("  confusion matrix (rows: true class, columns: predicted class)\n");
    for (long[] row : confusion) {
      sb.append("  ");
      for (long c : row) {
        sb.append(String.format(Locale.ROOT, " %8d", c));
      }
      sb.append('\n');
    }
    return sb.toString();
  }
}
