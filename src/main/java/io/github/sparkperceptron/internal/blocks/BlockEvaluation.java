package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.evaluation.ConfusionCounts;
import io.github.sparkperceptron.internal.evaluation.RankedScores;
import io.github.sparkperceptron.internal.kernel.FeatureBlock;
import io.github.sparkperceptron.internal.kernel.Predictor;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.broadcast.Broadcast;

/**
 * A model's predictions on cached blocks ({@link TrainingInput}: the rows as read, or data read
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
    /** The ranking of each chunk's scores (binary models), in chunk order. */
    final List<ScoreRanking.Head> heads = new ArrayList<>();
  }

  /**
   * Scores the rows of {@code data}'s blocks as read: the training rows and the rows held out to
   * calibrate on ({@link TrainingInput#evaluatesHeldOutRows}), validation rows left out.
   *
   * @param labelCol the label's name, for the message about a class the model lacks
   * @throws IllegalArgumentException when a row's class is not one of the predictor's
   */
  public static Result evaluate(TrainingInput data, Predictor predictor, String labelCol) {
    int k = predictor.numClasses();
    Broadcast<Predictor> shipped = data.sparkContext().broadcast(predictor);
    try {
      // Every chunk's ranking shares the driver's limit (ScoreRanking.DRIVER_LIMIT).
      int runs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, data.chunks()));
      boolean heldOutToo = data.evaluatesHeldOutRows();
      List<Part> parts = PartitionJob.map(data.blocks, p -> score(p, shipped.value(), runs,
          heldOutToo));
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
        heads.addAll(part.heads);
      }
      if (maxLabel >= k) {
        throw new IllegalArgumentException("Column '" + labelCol + "' (labelCol) has "
            + (double) maxLabel + ", which is not a class of this " + k + "-class model (0.."
            + (k - 1) + ")");
      }
      if (k != 2) {
        return new Result(confusion, rows, Double.NaN, Double.NaN);
      }
      JavaRDD<WorkerBlocks> blocks = data.blocks;
      double[] areas = ScoreRanking.areas(heads, () -> blocks.flatMap(p ->
          rankings(p, shipped.value(), heldOutToo)));
      return new Result(confusion, rows, areas[0], areas[1]);
    } finally {
      shipped.unpersist(false);
    }
  }

  /**
   * One worker's confusion and, for a binary model, each chunk's ranking of its scores, shipped
   * as a head (whole when small, see {@link ScoreRanking.Head#of}): a chunk's rows at a time, so
   * that a worker of any size is scored in bounded memory. Stops at a row whose class the model
   * lacks (the driver refuses the evaluation).
   */
  private static Part score(WorkerBlocks worker, Predictor model, int runs,
      boolean heldOutToo) {
    Part part = new Part();
    int k = model.numClasses();
    ChunkScorer scorers = new ChunkScorer(model);
    for (TrainingBlock chunk : worker.evaluatedChunks(heldOutToo)) {
      for (int r = 0; r < chunk.numRows(); r++) {
        part.maxLabel = Math.max(part.maxLabel, chunk.label(r));
      }
      if (part.maxLabel >= k) {
        part.confusion = null;
        part.heads.clear();
        return part;
      }
      if (part.confusion == null) {
        part.confusion = new ConfusionCounts(k);
      }
      RankedScores run = score(chunk, scorers, part.confusion);
      part.rows += chunk.numRows();
      if (run != null) {
        part.heads.add(ScoreRanking.Head.of(run, runs));
      }
    }
    return part;
  }

  /**
   * Each chunk's ranking of a binary model's scores, whole (the path of large rankings), made as
   * it is asked for: a worker holds one chunk's ranking at a time, whatever its rows.
   */
  private static Iterator<RankedScores> rankings(WorkerBlocks worker, Predictor model,
      boolean heldOutToo) {
    ChunkScorer scorers = new ChunkScorer(model);
    ConfusionCounts ignored = new ConfusionCounts(model.numClasses());
    Iterator<TrainingBlock> chunks = worker.evaluatedChunks(heldOutToo).iterator();
    return new Iterator<RankedScores>() {
      @Override
      public boolean hasNext() {
        return chunks.hasNext();
      }

      @Override
      public RankedScores next() {
        return score(chunks.next(), scorers, ignored);
      }
    };
  }

  /**
   * Adds {@code chunk}'s rows to {@code confusion}; for a binary model returns the ranking of
   * their scores (else null).
   */
  private static RankedScores score(TrainingBlock block, ChunkScorer scorers,
      ConfusionCounts confusion) {
    Predictor predictor = scorers.of(block);
    RankedScores.Builder ranking = predictor.numClasses() == 2 ? new RankedScores.Builder()
        : null;
    FeatureBlock x = block.features();
    int[] rowIndices = new int[Math.max(1, x.maxStoredPerRow())];
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
      confusion.add(label, predicted, 1.0);
    }
    return ranking == null ? null : ranking.build();
  }

  /**
   * Σ weight of the rows {@code model} predicts correctly and Σ weight, over {@code chunks}
   * (numbered by the worker's features or the model's).
   */
  public static double[] weightedAccuracy(Iterable<TrainingBlock> chunks, Predictor model) {
    ChunkScorer scorers = new ChunkScorer(model);
    double[] sum = new double[2];
    for (TrainingBlock chunk : chunks) {
      double[] s = scorers.of(chunk).weightedAccuracy(chunk);
      sum[0] += s[0];
      sum[1] += s[1];
    }
    return sum;
  }

  /**
   * {@link #evaluate}'s accuracy alone, in one pass without a ranking: Σ correct / rows, NaN
   * without rows. For data read only to be scored, which carry no sample weights.
   */
  public static double accuracy(TrainingInput data, Predictor predictor) {
    Broadcast<Predictor> shipped = data.sparkContext().broadcast(predictor);
    try {
      List<double[]> sums = PartitionJob.map(data.blocks, p -> weightedAccuracy(
          p.trainingChunks(), shipped.value()));
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
