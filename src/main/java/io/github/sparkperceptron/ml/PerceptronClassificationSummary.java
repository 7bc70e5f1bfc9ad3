package io.github.sparkperceptron.ml;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.sum;

import java.io.Serializable;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.ml.linalg.DenseMatrix;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.mllib.evaluation.BinaryClassificationMetrics;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import scala.Tuple3;

/**
 * How well a model classifies labelled data: what {@link PerceptronClassificationModel#evaluate}
 * returns, with the names of Spark's classification summaries ({@code LinearSVCModel.evaluate}
 * returns a {@code LinearSVCSummary}).
 *
 * <p>Everything derives from the K × K confusion matrix C, C[i][j] = Σ of the weights of the rows
 * with label i predicted as j (with {@code weightCol} unset, every weight is 1 and C counts rows),
 * computed by one aggregation when the summary is made:
 * <pre>
 * accuracy           Σ_k C[k][k] / Σ C
 * precision(k)       C[k][k] / Σ_i C[i][k]        (0 when nothing was predicted as k)
 * recall(k)          C[k][k] / Σ_j C[k][j]        (0 when no row has label k)
 * fMeasure(k, β)     (1 + β²)·p·r / (β²·p + r)    (0 when p + r = 0)
 * falsePositiveRate(k)  Σ_{i≠k} C[i][k] / Σ_{i≠k} Σ_j C[i][j]   (0 when every row has label k)
 * weighted metric    Σ_k metric(k) · Σ_j C[k][j] / Σ C   (weighted by each label's share)
 * </pre>
 * as Spark's {@code MulticlassMetrics} defines them. One difference: the per-label arrays here
 * cover every class 0 .. K−1 of the model, index = class, where Spark's cover only the labels
 * present in the data; a class absent from the data gets recall 0 and weighs 0 in the weighted
 * metrics, so those agree with Spark's.
 *
 * <p>The areas under the ROC and precision-recall curves (binary models only) rank the rows by
 * the raw prediction (the margin, or a voted model's vote): both come from one ranking, computed
 * on the first call of either (one pass over the predictions, where a
 * {@code BinaryClassificationEvaluator} per area makes two).
 */
public final class PerceptronClassificationSummary implements Serializable {
  private static final long serialVersionUID = 1L;

  private final transient Dataset<Row> predictions;
  private final String predictionCol;
  private final String labelCol;
  private final String weightCol;
  private final String scoreCol;
  private final long numInstances;
  /** confusion[label][prediction], weighted. */
  private final double[][] confusion;
  private transient Double areaUnderRoc;
  private transient Double areaUnderPr;

  private PerceptronClassificationSummary(Dataset<Row> predictions, String predictionCol,
      String labelCol, String weightCol, String scoreCol, long numInstances,
      double[][] confusion) {
    this.predictions = predictions;
    this.predictionCol = predictionCol;
    this.labelCol = labelCol;
    this.weightCol = weightCol;
    this.scoreCol = scoreCol;
    this.numInstances = numInstances;
    this.confusion = confusion;
  }

  /**
   * Aggregates the predictions of a K-class model into the confusion matrix, checking labels
   * and weights on the way.
   *
   * @param weightCol the weight column, or "" for weight 1 everywhere
   */
  static PerceptronClassificationSummary of(Dataset<Row> predictions, String predictionCol,
      String labelCol, String weightCol, String scoreCol, int numClasses) {
    Column weight = weightCol.isEmpty() ? lit(1.0) : col(weightCol).cast("double");
    List<Row> cells = predictions
        .groupBy(col(labelCol).cast("double"), col(predictionCol))
        .agg(count(lit(1)), count(weight), sum(weight), min(weight), max(weight))
        .collectAsList();
    double[][] confusion = new double[numClasses][numClasses];
    long rows = 0;
    for (Row r : cells) {
      if (r.isNullAt(0)) {
        throw new IllegalArgumentException("Column '" + labelCol + "' (labelCol) holds null"
            + " labels; drop those rows before evaluating");
      }
      double label = r.getDouble(0);
      if (!(label >= 0 && label < numClasses && label == Math.rint(label))) {
        throw new IllegalArgumentException("Column '" + labelCol + "' (labelCol) has " + label
            + ", which is not a class of this " + numClasses + "-class model (0.."
            + (numClasses - 1) + ")");
      }
      long n = r.getLong(2);
      if (r.getLong(3) != n || !(r.getDouble(5) >= 0) || Double.isInfinite(r.getDouble(6))
          || Double.isNaN(r.getDouble(6))) {
        throw new IllegalArgumentException("Column '" + weightCol + "' (weightCol) holds a null,"
            + " negative, NaN or infinite weight; weights must be finite and >= 0");
      }
      confusion[(int) label][(int) r.getDouble(1)] += r.getDouble(4);
      rows += n;
    }
    return new PerceptronClassificationSummary(predictions, predictionCol, labelCol, weightCol,
        scoreCol, rows, confusion);
  }

  /** The evaluated rows with the model's output columns. */
  public Dataset<Row> predictions() {
    return predictions;
  }

  /** The column of {@link #predictions()} holding each row's predicted class. */
  public String predictionCol() {
    return predictionCol;
  }

  /** The column of {@link #predictions()} holding each row's true class. */
  public String labelCol() {
    return labelCol;
  }

  /** The column of sample weights, or "" when every row weighs 1. */
  public String weightCol() {
    return weightCol;
  }

  /** The column of {@link #predictions()} holding the raw predictions (margins or votes). */
  public String scoreCol() {
    return scoreCol;
  }

  /** The number of rows evaluated. */
  public long numInstances() {
    return numInstances;
  }

  /** The number of classes K: the length of the per-label arrays. */
  public int numClasses() {
    return confusion.length;
  }

  /** The classes 0.0 .. K−1, in the order of the per-label arrays. */
  public double[] labels() {
    double[] labels = new double[confusion.length];
    for (int k = 0; k < labels.length; k++) {
      labels[k] = k;
    }
    return labels;
  }

  /**
   * The K × K confusion matrix: rows are true labels, columns predicted classes (as Spark's
   * {@code MulticlassMetrics.confusionMatrix}), entries the summed weights (row counts when
   * {@code weightCol} is unset).
   */
  public Matrix confusionMatrix() {
    int k = confusion.length;
    double[] values = new double[k * k];
    for (int i = 0; i < k; i++) {
      System.arraycopy(confusion[i], 0, values, i * k, k);
    }
    return new DenseMatrix(k, k, values, true);
  }

  /** Σ of the weights of the rows (the row count when unweighted). */
  public double weightSum() {
    double total = 0;
    for (int k = 0; k < confusion.length; k++) {
      total += labelWeight(k);
    }
    return total;
  }

  /** The (weighted) share of rows predicted correctly; NaN for no rows. */
  public double accuracy() {
    double correct = 0;
    for (int k = 0; k < confusion.length; k++) {
      correct += confusion[k][k];
    }
    double total = weightSum();
    return total == 0 ? Double.NaN : correct / total;
  }

  /** Per class: of the rows predicted as k, the share that are k. */
  public double[] precisionByLabel() {
    double[] out = new double[confusion.length];
    for (int k = 0; k < out.length; k++) {
      out[k] = precision(k);
    }
    return out;
  }

  /** Per class: of the rows labelled k, the share predicted as k. */
  public double[] recallByLabel() {
    double[] out = new double[confusion.length];
    for (int k = 0; k < out.length; k++) {
      out[k] = recall(k);
    }
    return out;
  }

  /** Per class: the true positive rate, which is the recall. */
  public double[] truePositiveRateByLabel() {
    return recallByLabel();
  }

  /** Per class: of the rows not labelled k, the share predicted as k. */
  public double[] falsePositiveRateByLabel() {
    double[] out = new double[confusion.length];
    for (int k = 0; k < out.length; k++) {
      out[k] = falsePositiveRate(k);
    }
    return out;
  }

  /** Per class: the F1 measure, the harmonic mean of precision and recall. */
  public double[] fMeasureByLabel() {
    return fMeasureByLabel(1.0);
  }

  /** Per class: the F-β measure (β &gt; 1 favours recall). */
  public double[] fMeasureByLabel(double beta) {
    double[] out = new double[confusion.length];
    for (int k = 0; k < out.length; k++) {
      out[k] = fMeasure(k, beta);
    }
    return out;
  }

  /** The precisions, weighted by each label's share of the rows. */
  public double weightedPrecision() {
    return weighted(precisionByLabel());
  }

  /** The recalls, weighted by each label's share of the rows (equals the accuracy). */
  public double weightedRecall() {
    return weighted(recallByLabel());
  }

  /** The true positive rates, weighted by each label's share: the weighted recall. */
  public double weightedTruePositiveRate() {
    return weightedRecall();
  }

  /** The false positive rates, weighted by each label's share of the rows. */
  public double weightedFalsePositiveRate() {
    return weighted(falsePositiveRateByLabel());
  }

  /** The F1 measures, weighted by each label's share of the rows. */
  public double weightedFMeasure() {
    return weightedFMeasure(1.0);
  }

  /** The F-β measures, weighted by each label's share of the rows. */
  public double weightedFMeasure(double beta) {
    return weighted(fMeasureByLabel(beta));
  }

  /**
   * The area under the ROC curve of a binary model's raw predictions (weighted when
   * {@code weightCol} is set), as Spark's {@code BinaryClassificationSummary.areaUnderROC}.
   *
   * @throws IllegalStateException for a multiclass model
   */
  public double areaUnderROC() {
    if (areaUnderRoc == null) {
      curveAreas("areaUnderROC");
    }
    return areaUnderRoc;
  }

  /**
   * The area under the precision-recall curve of a binary model's raw predictions (weighted
   * when {@code weightCol} is set), as {@code BinaryClassificationEvaluator}'s "areaUnderPR".
   *
   * @throws IllegalStateException for a multiclass model
   */
  public double areaUnderPR() {
    if (areaUnderPr == null) {
      curveAreas("areaUnderPR");
    }
    return areaUnderPr;
  }

  /**
   * Both areas from one {@link BinaryClassificationMetrics} over (score, label, weight), as
   * {@code BinaryClassificationEvaluator} computes either (score = element 1 of a vector raw
   * prediction, 1000 bins), but from one ranking of the rows instead of one per area.
   */
  private void curveAreas(String metric) {
    if (confusion.length != 2) {
      throw new IllegalStateException(metric + " is defined for binary models only; this model"
          + " has " + confusion.length + " classes");
    }
    if (predictions == null) {
      throw new IllegalStateException(metric + " needs the predictions, which a deserialized"
          + " summary no longer has");
    }
    Column weight = weightCol.isEmpty() ? lit(1.0) : col(weightCol).cast("double");
    JavaRDD<Tuple3<Object, Object, Object>> scored = predictions
        .select(col(scoreCol), col(labelCol).cast("double"), weight).javaRDD()
        .map(r -> new Tuple3<>(r.get(0) instanceof Vector v ? v.apply(1) : r.getDouble(0),
            r.getDouble(1), r.getDouble(2)));
    BinaryClassificationMetrics metrics = new BinaryClassificationMetrics(scored.rdd(),
        CURVE_BINS);
    try {
      areaUnderRoc = metrics.areaUnderROC();
      areaUnderPr = metrics.areaUnderPR();
    } finally {
      metrics.unpersist();
    }
  }

  /** BinaryClassificationEvaluator's default: the curves are down-sampled to about 1000 bins. */
  private static final int CURVE_BINS = 1000;

  private double labelWeight(int k) {
    double total = 0;
    for (double c : confusion[k]) {
      total += c;
    }
    return total;
  }

  private double predictedWeight(int k) {
    double total = 0;
    for (double[] row : confusion) {
      total += row[k];
    }
    return total;
  }

  private double precision(int k) {
    double predicted = predictedWeight(k);
    return predicted == 0 ? 0.0 : confusion[k][k] / predicted;
  }

  private double recall(int k) {
    double actual = labelWeight(k);
    return actual == 0 ? 0.0 : confusion[k][k] / actual;
  }

  private double falsePositiveRate(int k) {
    double negatives = 0;
    double falsePositives = 0;
    for (int i = 0; i < confusion.length; i++) {
      if (i != k) {
        negatives += labelWeight(i);
        falsePositives += confusion[i][k];
      }
    }
    return negatives == 0 ? 0.0 : falsePositives / negatives;
  }

  private double fMeasure(int k, double beta) {
    double p = precision(k);
    double r = recall(k);
    double b2 = beta * beta;
    return p + r == 0 ? 0.0 : (1 + b2) * p * r / (b2 * p + r);
  }

  private double weighted(double[] byLabel) {
    double total = weightSum();
    double sum = 0;
    for (int k = 0; k < byLabel.length; k++) {
      sum += byLabel[k] * labelWeight(k) / total;
    }
    return sum;
  }

  @Override
  public String toString() {
    return "PerceptronClassificationSummary{rows=" + numInstances + ", classes="
        + confusion.length + ", accuracy=" + accuracy() + "}";
  }
}
