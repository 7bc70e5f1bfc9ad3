package io.github.sparkperceptron.ml;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.github.sparkperceptron.internal.blocks.ScoreRanking;
import io.github.sparkperceptron.internal.evaluation.ConfusionCounts;
import io.github.sparkperceptron.internal.evaluation.RankedScores;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.ml.linalg.DenseMatrix;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * How well a model classifies labelled data: what {@link PerceptronClassificationModel#evaluate}
 * returns, with the names of Spark's classification summaries ({@code LinearSVCModel.evaluate}
 * returns a {@code LinearSVCSummary}).
 *
 * <p>Everything derives from the K × K confusion matrix C, C[i][j] = Σ of the weights of the rows
 * with label i predicted as j (with {@code weightCol} unset, every weight is 1 and C counts rows),
 * counted in one pass over the predictions when the summary is made:
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
 * the raw prediction (the margin, or a voted model's vote), with the values of Spark's
 * {@code BinaryClassificationMetrics} (1000 bins, see {@link
 * io.github.sparkperceptron.internal.evaluation.CurveAreas}): both come from one ranking, which the same
 * pass makes, partition by partition; up to about two million distinct scores the areas are
 * then known at once, larger rankings are merged on the executors on the first call of either
 * (another pass over the predictions, where a {@code BinaryClassificationEvaluator} makes several
 * per area).
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
  /** The curve areas, once known ({@code null} before; NaN for no rows). */
  private Double areaUnderRoc;
  private Double areaUnderPr;

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
   * Counts the predictions of a K-class model into the confusion matrix, checking labels and
   * weights on the way, and ranks a binary model's scores, in one pass.
   *
   * @param weightCol the weight column, or "" for weight 1 everywhere
   */
  static PerceptronClassificationSummary of(Dataset<Row> predictions, String predictionCol,
      String labelCol, String weightCol, String scoreCol, int numClasses) {
    Column weight = weightCol.isEmpty() ? lit(1.0) : col(weightCol).cast("double");
    JavaRDD<Row> rows = predictions.select(col(labelCol).cast("double"), col(predictionCol),
        weight, col(scoreCol)).javaRDD();
    int partitions = rows.getNumPartitions();
    List<Part> parts = rows.mapPartitions(it -> Collections.singletonList(
        Part.count(it, numClasses, true, partitions)).iterator()).collect();
    double[][] confusion = new double[numClasses][numClasses];
    long count = 0;
    Part problems = new Part();
    List<ScoreRanking.Head> heads = new ArrayList<>();
    for (Part part : parts) {
      problems.nullLabel |= part.nullLabel;
      problems.badLabel = problems.badLabel != null ? problems.badLabel : part.badLabel;
      problems.badWeight |= part.badWeight;
      if (part.confusion != null) {
        part.confusion.addTo(confusion);
      }
      count += part.rows;
      heads.add(part.head);
    }
    if (problems.nullLabel) {
      throw new IllegalArgumentException("Column '" + labelCol + "' (labelCol) holds null"
          + " labels; drop those rows before evaluating");
    }
    if (problems.badLabel != null) {
      throw new IllegalArgumentException("Column '" + labelCol + "' (labelCol) has "
          + problems.badLabel + ", which is not a class of this " + numClasses + "-class model"
          + " (0.." + (numClasses - 1) + ")");
    }
    if (problems.badWeight) {
      throw new IllegalArgumentException("Column '" + weightCol + "' (weightCol) holds a null,"
          + " negative, NaN or infinite weight; weights must be finite and >= 0");
    }
    PerceptronClassificationSummary summary = new PerceptronClassificationSummary(predictions,
        predictionCol, labelCol, weightCol, scoreCol, count, confusion);
    if (numClasses == 2) {
      summary.areasFrom(heads);
    }
    return summary;
  }

  /**
   * A summary of counts made elsewhere (the engine's pass over cached blocks): no predictions,
   * the areas given (NaN for a multiclass model).
   */
  static PerceptronClassificationSummary of(double[][] confusion, long rows,
      double areaUnderROC, double areaUnderPR) {
    PerceptronClassificationSummary summary = new PerceptronClassificationSummary(null,
        "prediction", "label", "", "rawPrediction", rows, confusion);
    if (confusion.length == 2) {
      summary.areaUnderRoc = areaUnderROC;
      summary.areaUnderPr = areaUnderPR;
    }
    return summary;
  }

  /**
   * The areas from the pass's heads when every ranking came whole (no job), else (larger
   * rankings) on the first call of either, from another pass over the predictions.
   */
  private void areasFrom(List<ScoreRanking.Head> heads) {
    if (ScoreRanking.complete(heads)) {
      double[] areas = ScoreRanking.areas(heads, null);
      areaUnderRoc = areas[0];
      areaUnderPr = areas[1];
    } else {
      pendingHeads = heads;
    }
  }

  /** Heads of rankings that did not travel whole, for the first call of an area; else null. */
  private transient List<ScoreRanking.Head> pendingHeads;

  /** One partition's counts and, for a binary model, the head of its ranking. */
  private static final class Part implements Serializable {
    private static final long serialVersionUID = 1L;
    ConfusionCounts confusion;
    long rows;
    boolean nullLabel;
    /** The first label that is not a class of the model, or {@code null}. */
    Double badLabel;
    boolean badWeight;
    ScoreRanking.Head head;
    /** The whole ranking, when asked for it rather than a head. */
    RankedScores ranking;

    /**
     * Counts (label, prediction, weight, score) rows.
     *
     * @param headOnly whether the ranking goes as a head (the counting pass) or whole (the pass
     *     that makes the rankings again for a range merge)
     */
    static Part count(Iterator<Row> it, int numClasses, boolean headOnly, int partitions) {
      Part part = new Part();
      part.confusion = new ConfusionCounts(numClasses);
      RankedScores.Builder ranking = numClasses == 2 ? new RankedScores.Builder() : null;
      while (it.hasNext()) {
        Row r = it.next();
        part.rows++;
        if (r.isNullAt(0)) {
          part.nullLabel = true;
          continue;
        }
        double label = r.getDouble(0);
        if (!(label >= 0 && label < numClasses && label == Math.rint(label))) {
          part.badLabel = part.badLabel != null ? part.badLabel : label;
          continue;
        }
        double w = r.isNullAt(2) ? Double.NaN : r.getDouble(2);
        if (!(w >= 0) || Double.isInfinite(w)) {
          part.badWeight = true;
          continue;
        }
        part.confusion.add((int) label, (int) r.getDouble(1), w);
        if (ranking != null) {
          Object raw = r.get(3);
          ranking.add(raw instanceof Vector v ? v.apply(1) : r.getDouble(3), label == 1.0, w);
        }
      }
      if (ranking != null) {
        RankedScores run = ranking.build();
        part.head = headOnly ? ScoreRanking.Head.of(run, partitions) : null;
        part.ranking = headOnly ? null : run;
      }
      return part;
    }
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
    curveAreas("areaUnderROC");
    return areaUnderRoc;
  }

  /**
   * The area under the precision-recall curve of a binary model's raw predictions (weighted
   * when {@code weightCol} is set), as {@code BinaryClassificationEvaluator}'s "areaUnderPR".
   *
   * @throws IllegalStateException for a multiclass model
   */
  public double areaUnderPR() {
    curveAreas("areaUnderPR");
    return areaUnderPr;
  }

  /**
   * Makes sure both areas are known: those of the counting pass's rankings, merged on the
   * executors when they were too large to merge on the driver.
   */
  private void curveAreas(String metric) {
    if (confusion.length != 2) {
      throw new IllegalStateException(metric + " is defined for binary models only; this model"
          + " has " + confusion.length + " classes");
    }
    if (areaUnderRoc != null) {
      return;
    }
    if (predictions == null || pendingHeads == null) {
      throw new IllegalStateException(metric + " needs the predictions, which a deserialized"
          + " summary no longer has");
    }
    Column weight = weightCol.isEmpty() ? lit(1.0) : col(weightCol).cast("double");
    JavaRDD<Row> rows = predictions.select(col(labelCol).cast("double"), col(predictionCol),
        weight, col(scoreCol)).javaRDD();
    double[] areas = ScoreRanking.areas(pendingHeads, () -> rows.mapPartitions(it ->
        Collections.singletonList(Part.count(it, 2, false, 0).ranking).iterator()));
    areaUnderRoc = areas[0];
    areaUnderPr = areas[1];
    pendingHeads = null;
  }

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
