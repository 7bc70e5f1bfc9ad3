package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.calibration.Calibrator;
import io.github.sparkperceptron.internal.calibration.ScoreSample;
import io.github.sparkperceptron.internal.evaluation.ProbabilityMetrics;
import io.github.sparkperceptron.internal.kernel.FeatureBlock;
import io.github.sparkperceptron.internal.kernel.Predictor;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.broadcast.Broadcast;

/**
 * A model's raw scores and probabilities on cached blocks ({@link TrainingInput}), each in one
 * Spark job: the calibration sample a calibrator is fitted on ({@link #sample}: every worker
 * scores its calibration rows, chunk by chunk, and ships their scores, classes and weights), and how good a
 * calibrator's probabilities are on scored rows ({@link #metrics}: log-loss, Brier, ECE, summed
 * per worker, every row counting 1). The model travels in one broadcast; rows are scored as stored
 * ({@link Predictor#forBlock}), with the model's {@link Predictor}, the scorer of its transform.
 *
 * <p><b>Bounded.</b> The driver receives at most {@value #MAX_SCORES} scores (8 MiB, plus a class
 * and a weight per row): above that, every worker keeps every s-th of its calibration rows, s =
 * ⌈rows·K' / {@value #MAX_SCORES}⌉ (K' = 1 for a binary model, else K), the same rows for the
 * same blocks. A one- or two-parameter fit (Platt, temperature) on a million rows is as exact as
 * on all of them for any practical purpose; an isotonic fit keeps up to two steps per distinct
 * sampled score. The sample is joined in worker order: the same blocks give the same bits.
 */
public final class BlockProbabilities {
  /** The most scores the driver receives for a calibration fit. */
  public static final int MAX_SCORES = 1 << 20;

  private BlockProbabilities() {
  }

  /**
   * The scores of the calibration rows of {@code data}: the rows it keeps apart from the training
   * rows ({@code validationIndicatorCol}'s, or those held out of training:
   * {@link TrainingInput#calibrationRows()}) when {@code validationRows}, else its training rows
   * ({@code model.calibrate(rows)} reads every given row as one).
   */
  public static ScoreSample sample(TrainingInput data, Predictor predictor,
      boolean validationRows) {
    long rows = validationRows ? data.validationRows : data.numRows;
    int width = predictor.numClasses() == 2 ? 1 : predictor.numClasses();
    long stride = Math.max(1, (rows * width + MAX_SCORES - 1) / MAX_SCORES);
    int numClasses = predictor.numClasses();
    Broadcast<Predictor> shipped = data.sparkContext().broadcast(predictor);
    try {
      List<ScoreSample> parts = PartitionJob.map(data.blocks, p -> scores(validationRows
          ? p.validationChunks() : p.trainingChunks(), shipped.value(), stride));
      return ScoreSample.concat(numClasses, parts);
    } finally {
      shipped.unpersist(false);
    }
  }

  /**
   * One worker's sample: every {@code stride}-th of its rows, counted across its chunks in
   * storage order.
   */
  private static ScoreSample scores(Iterable<TrainingBlock> chunks, Predictor model,
      long stride) {
    int numClasses = model.numClasses();
    ChunkScorer scorers = new ChunkScorer(model);
    List<ScoreSample> parts = new ArrayList<>();
    long row = 0;
    for (TrainingBlock chunk : chunks) {
      int n = chunk.numRows();
      // The first row of this chunk that is a multiple of stride, counted over the worker.
      int first = (int) ((stride - row % stride) % stride);
      ScoreSample sample = ScoreSample.withCapacity(numClasses,
          first >= n ? 0 : (int) ((n - first + stride - 1) / stride));
      Predictor predictor = scorers.of(chunk);
      FeatureBlock x = chunk.features();
      int[] rowIndices = new int[Math.max(1, x.maxStoredPerRow())];
      double[] rowValues = new double[rowIndices.length];
      double[] raw = new double[numClasses == 2 ? 1 : numClasses];
      for (long r = first; r < n; r += stride) {
        predictor.rawScores(x, (int) r, rowIndices, rowValues, raw);
        sample.add(raw, 0, chunk.label((int) r), chunk.weight((int) r));
      }
      parts.add(sample);
      row += n;
    }
    return ScoreSample.concat(numClasses, parts);
  }

  /**
   * The probability metrics of {@code calibrator} over {@code predictor}'s scores of the
   * rows of {@code data}'s blocks as read (the training rows and the rows held out to calibrate
   * on, validation rows left out: {@link BlockEvaluation#evaluate}), unweighted (every row
   * counts 1, as the jobs evaluate the rows as read: {@link BlockEvaluation}); the workers' parts
   * summed in worker order.
   *
   * @throws IllegalArgumentException when a row's class is not one of the model's
   */
  public static ProbabilityMetrics metrics(TrainingInput data, Predictor predictor,
      Calibrator calibrator) {
    int k = predictor.numClasses();
    if (data.numClasses > k) {
      throw new IllegalArgumentException("the scored data hold " + data.numClasses
          + " classes, more than this " + k + "-class model's");
    }
    Broadcast<Predictor> shippedModel = data.sparkContext().broadcast(predictor);
    Broadcast<Calibrator> shippedCalibrator = data.sparkContext().broadcast(calibrator);
    try {
      boolean heldOutToo = data.evaluatesHeldOutRows();
      List<ProbabilityMetrics> parts = PartitionJob.map(data.blocks, p -> measure(
          p.evaluatedChunks(heldOutToo), shippedModel.value(), shippedCalibrator.value()));
      ProbabilityMetrics all = new ProbabilityMetrics(k);
      for (ProbabilityMetrics part : parts) {
        all.merge(part);
      }
      return all;
    } finally {
      shippedModel.unpersist(false);
      shippedCalibrator.unpersist(false);
    }
  }

  private static ProbabilityMetrics measure(Iterable<TrainingBlock> chunks, Predictor model,
      Calibrator calibrator) {
    int k = model.numClasses();
    ProbabilityMetrics metrics = new ProbabilityMetrics(k);
    ChunkScorer scorers = new ChunkScorer(model);
    double[] scores = new double[k == 2 ? 1 : k];
    // Spark's raw prediction: [−m, m] for a binary model, the K scores otherwise.
    double[] raw = new double[k];
    double[] probabilities = new double[k];
    for (TrainingBlock chunk : chunks) {
      Predictor predictor = scorers.of(chunk);
      FeatureBlock x = chunk.features();
      int[] rowIndices = new int[Math.max(1, x.maxStoredPerRow())];
      double[] rowValues = new double[rowIndices.length];
      for (int r = 0; r < chunk.numRows(); r++) {
        predictor.rawScores(x, r, rowIndices, rowValues, scores);
        if (k == 2) {
          raw[0] = -scores[0];
          raw[1] = scores[0];
        } else {
          System.arraycopy(scores, 0, raw, 0, k);
        }
        calibrator.probabilities(raw, probabilities);
        metrics.add(probabilities, chunk.label(r), 1.0);
      }
    }
    return metrics;
  }
}
