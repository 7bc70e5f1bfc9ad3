package io.github.sparkperceptron.jobs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import org.apache.spark.ml.evaluation.BinaryClassificationEvaluator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Classification metrics of a model's predictions on labelled data: accuracy, per-class
 * precision, recall and F1, the confusion matrix and, for binary models, the areas under the ROC
 * and precision-recall curves. Computed from one aggregation (label, prediction) → count, plus one
 * pass for the curves.
 */
final class Evaluation {
  final long rows;
  final int numClasses;
  /** confusion[true][predicted]. */
  final long[][] confusion;
  final double areaUnderRoc;
  final double areaUnderPr;

  private Evaluation(long rows, long[][] confusion, double areaUnderRoc, double areaUnderPr) {
    this.rows = rows;
    this.numClasses = confusion.length;
    this.confusion = confusion;
    this.areaUnderRoc = areaUnderRoc;
    this.areaUnderPr = areaUnderPr;
  }

  /** Evaluates {@code predictions} (columns label, prediction, rawPrediction). */
  static Evaluation of(Dataset<Row> predictions, int numClasses) {
    long[][] confusion = new long[numClasses][numClasses];
    long rows = 0;
    for (Row r : predictions.groupBy("label", "prediction").count().collectAsList()) {
      int label = (int) r.getDouble(0);
      int predicted = (int) r.getDouble(1);
      if (label >= 0 && label < numClasses && predicted >= 0 && predicted < numClasses) {
        confusion[label][predicted] += r.getLong(2);
      }
      rows += r.getLong(2);
    }
    double roc = Double.NaN;
    double pr = Double.NaN;
    if (numClasses == 2 && rows > 0) {
      BinaryClassificationEvaluator curves = new BinaryClassificationEvaluator()
          .setRawPredictionCol("rawPrediction").setLabelCol("label");
      roc = curves.setMetricName("areaUnderROC").evaluate(predictions);
      pr = curves.setMetricName("areaUnderPR").evaluate(predictions);
    }
    return new Evaluation(rows, confusion, roc, pr);
  }

  double accuracy() {
    long correct = 0;
    for (int k = 0; k < numClasses; k++) {
      correct += confusion[k][k];
    }
    return rows == 0 ? Double.NaN : correct / (double) rows;
  }

  double precision(int k) {
    long predicted = 0;
    for (long[] row : confusion) {
      predicted += row[k];
    }
    return predicted == 0 ? 0.0 : confusion[k][k] / (double) predicted;
  }

  double recall(int k) {
    long actual = 0;
    for (long c : confusion[k]) {
      actual += c;
    }
    return actual == 0 ? 0.0 : confusion[k][k] / (double) actual;
  }

  double f1(int k) {
    double p = precision(k);
    double r = recall(k);
    return p + r == 0 ? 0.0 : 2 * p * r / (p + r);
  }

  long support(int k) {
    long actual = 0;
    for (long c : confusion[k]) {
      actual += c;
    }
    return actual;
  }

  void writeTo(ObjectNode node) {
    node.put("rows", rows);
    Json.putNumber(node, "accuracy", accuracy());
    if (numClasses == 2) {
      Json.putNumber(node, "areaUnderROC", areaUnderRoc);
      Json.putNumber(node, "areaUnderPR", areaUnderPr);
    }
    ArrayNode classes = node.putArray("classes");
    for (int k = 0; k < numClasses; k++) {
      ObjectNode c = classes.addObject();
      c.put("label", k);
      c.put("support", support(k));
      Json.putNumber(c, "precision", precision(k));
      Json.putNumber(c, "recall", recall(k));
      Json.putNumber(c, "f1", f1(k));
    }
    ArrayNode matrix = node.putArray("confusionMatrix");
    for (long[] row : confusion) {
      ArrayNode r = matrix.addArray();
      for (long c : row) {
        r.add(c);
      }
    }
  }

  /** A few lines for the console. */
  String describe(String name) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%s: accuracy %.4f on %,d rows", name, accuracy(), rows));
    if (numClasses == 2) {
      sb.append(String.format(Locale.ROOT, ", areaUnderROC %.4f", areaUnderRoc));
    }
    sb.append('\n');
    sb.append(String.format(Locale.ROOT, "  %-6s %9s %9s %9s %9s%n", "class", "precision",
        "recall", "f1", "support"));
    for (int k = 0; k < numClasses; k++) {
      sb.append(String.format(Locale.ROOT, "  %-6d %9.4f %9.4f %9.4f %9d%n", k, precision(k),
          recall(k), f1(k), support(k)));
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
