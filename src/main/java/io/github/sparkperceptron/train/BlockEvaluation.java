package io.github.sparkperceptron.train;

import io.github.sparkperceptron.evaluation.ConfusionCounts;
import io.github.sparkperceptron.evaluation.RankedScores;
import io.github.sparkperceptron.kernel.FeatureBlock;
import io.github.sparkperceptron.kernel.Predictor;
import io.github.sparkperceptron.kernel.TrainingBlock;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.broadcast.Broadcast;

/**
 * A model's predictions on cached blocks ({@link TrainingInput}: the training rows, or data read
 * only to be scored), every metric from one pass over them: each worker scores its rows once
 * (the predictor shipped in one broadcast), counts its confusion matrix and, for a binary model,
 * ranks its scores ({@link ScoreRanking}), so that accuracy, per-class precision, recall and F1
 * and both curve areas cost one Spark job (plus three more only for rankings too large to merge
 * on the driver). Unweighted: every row counts 1, as the jobs evaluate the rows as read.
 *
 * <p>Scores and predictions are the model's {@link Predictor}'s, the rule its transform applies,
 * on the stored rows (see {@link Predictor#binaryScore}).
 */
public final class BlockEvaluation {
  private BlockEvaluation() {
  }

  /**
   * What the pass found.
   *
   * @param confusion [label][prediction] row counts, K × K
   * @param rows the rows scored
   * @param areaUnderROC NaN for a multiclass model or no rows
   * @param areaUnderPR NaN for a multiclass model or no rows
   */
  public record Result(double[][] confusion, long rows, double areaUnderROC,
      double areaUnderPR) {
  }

  /** One worker's part. */
  private static final class Part implements Serializable {
    private static final long serialVersionUID = 1L;
    ConfusionCounts confusion;
    long rows;
    int maxLabel = -1;
    ScoreRanking.Head head;
  }

  /**
   * Scores the training rows of {@code data}'s blocks (validation rows left out).
   *
   * @param labelCol the label's name, for the message about a class the model lacks
   * @throws IllegalArgumentException when a row's class is not one of the predictor's
   */
  public static Result evaluate(TrainingInput data, Predictor predictor, String labelCol) {
    int k = predictor.numClasses();
    Broadcast<Predictor> shipped = data.sparkContext().broadcast(predictor);
    try {
      int partitions = data.blocks.getNumPartitions();
      List<Part> parts = data.blocks.map(p -> score(p.block, shipped.value(), true, partitions))
          .collect();
      double[][] confusion = new double[k][k];
      long rows = 0;
      int maxLabel = -1;
      List<ScoreRanking.Head> heads = new ArrayList<>();
      for (Part part : parts) {
        maxLabel = Math.max(maxLabel, part.maxLabel);
        rows += part.rows;
        if (part.confusion != null) {
          part.confusion.addTo(confusion);
        }
        heads.add(part.head);
      }
      if (maxLabel >= k) {
        throw new IllegalArgumentException("Column '" + labelCol + "' (labelCol) has "
            + (double) maxLabel + ", which is not a class of this " + k + "-class model (0.."
            + (k - 1) + ")");
      }
      if (k != 2) {
        return new Result(confusion, rows, Double.NaN, Double.NaN);
      }
      JavaRDD<PreparedPartition> blocks = data.blocks;
      double[] areas = ScoreRanking.areas(heads, () -> blocks.map(p ->
          score(p.block, shipped.value(), false, partitions).head.run));
      return new Result(confusion, rows, areas[0], areas[1]);
    } finally {
      shipped.unpersist(false);
    }
  }

  /**
   * One worker's confusion and ranking; {@code headOnly}: its ranking shipped as a head (else
   * whole, for the driver-limit path to cut).
   */
  private static Part score(TrainingBlock block, Predictor model, boolean headOnly,
      int partitions) {
    Part part = new Part();
    int k = model.numClasses();
    RankedScores.Builder ranking = k == 2 ? new RankedScores.Builder() : null;
    if (block != null) {
      // Training rows are numbered by their worker's own features.
      Predictor predictor = model.forBlock(block);
      FeatureBlock x = block.features();
      for (int r = 0; r < block.numRows(); r++) {
        part.maxLabel = Math.max(part.maxLabel, block.label(r));
      }
      if (part.maxLabel < k) {
        part.confusion = new ConfusionCounts(k);
        int[] rowIndices = new int[x.maxStoredPerRow()];
        double[] rowValues = new double[rowIndices.length];
        for (int r = 0; r < block.numRows(); r++) {
          int label = block.label(r);
          int predicted;
          if (ranking != null) {
            double score = predictor.binaryScore(x, r, rowIndices, rowValues);
            predicted = Predictor.binaryClass(score, predictor.threshold());
            ranking.add(score, label == 1, 1.0);
          } else {
            predicted = predictor.predict(x, r, rowIndices, rowValues);
          }
          part.confusion.add(label, predicted, 1.0);
        }
        part.rows = block.numRows();
      }
    }
    RankedScores run = ranking == null ? RankedScores.empty() : ranking.build();
    part.head = headOnly ? ScoreRanking.Head.of(run, partitions)
        : ScoreRanking.Head.whole(run);
    return part;
  }

  /**
   * {@link #evaluate}'s accuracy alone, in one pass without a ranking: Σ correct / rows, NaN
   * without rows. For data read only to be scored, which carry no sample weights.
   */
  public static double accuracy(TrainingInput data, Predictor predictor) {
    Broadcast<Predictor> shipped = data.sparkContext().broadcast(predictor);
    try {
      List<double[]> sums = data.blocks.map(p -> p.block == null ? new double[2]
          : shipped.value().forBlock(p.block).weightedAccuracy(p.block)).collect();
      double correct = 0;
      double total = 0;
      for (double[] s : sums) {
        correct += s[0];
        total += s[1];
      }
      return total == 0 ? Double.NaN : correct / total;
    } finally {
      shipped.unpersist(false);
    }
  }
}
