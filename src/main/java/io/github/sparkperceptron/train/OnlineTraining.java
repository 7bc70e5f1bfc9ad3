package io.github.sparkperceptron.train;

import io.github.sparkperceptron.kernel.EpochStats;
import io.github.sparkperceptron.kernel.LearnerConfig;
import io.github.sparkperceptron.kernel.LinearState;
import io.github.sparkperceptron.kernel.Predictor;
import io.github.sparkperceptron.kernel.TrainingBlock;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;

/**
 * Internal: one micro-batch of online learning, the engine's single entry point through which
 * {@code io.github.sparkperceptron.streaming} trains, from a {@link TrainingConfig}. Not a
 * public API; it may change without notice.
 *
 * <p>A batch is trained exactly as {@code PerceptronClassifier.fit} trains a dataset (the rows
 * are validated and converted by {@link TrainingInput}, the epochs run by
 * {@link MixingLoop#run}), except that it starts from the whole learner state the
 * previous batch left, not just its weights: w, the averaging accumulator u and the averaging
 * clock c. Under mixing every epoch spans [c, c + T] of the clock (T = the batch's total weight,
 * see {@code io.github.sparkperceptron.mixing}), so carrying c and u over makes the averaged
 * model the clock-weighted mean of every intermediate weight vector since the stream began, not
 * since the batch began. With one worker and one epoch per batch this is the serial online
 * averaged perceptron over the concatenated batches, bit for bit when its running sum of
 * averaging terms is added to u once per batch (a round's workers return their sum from zero
 * and the driver adds it: the same terms, associated per batch; a plain running sum differs in
 * the last bits only).
 *
 * <p>Each batch goes through the batch trainer's code unchanged: the workers return sparse
 * state changes, mixed along the fixed tree, in {@code mixingRounds} rounds per epoch (resolved
 * for the batch's workers as {@code fit} resolves them), the weights shipped by the exchange
 * layer.
 *
 * <p><b>Block momentum ({@code mixing=momentum}) restarts at every micro-batch.</b> The velocity
 * Δ and its update masses start at zero with each batch, from the batch's starting weights; only
 * w, u and c carry over. Why: (1) a restart is the mode's own bound-keeping move (Δ reset to 0,
 * O'Donoghue &amp; Candès 2015), so the stream keeps McDonald et al.'s mistake bound: each batch
 * keeps ‖w_end‖² ≤ ‖w_start‖² + ρ_b·M_b and, for a unit separator u* of margin γ,
 * u*·w_end ≥ u*·w_start + γ·M_b; chaining the batches from w = 0 gives
 * Σ_b M_b ≤ max_b ρ_b / γ², whereas a velocity carried over would have to be checked
 * against a ρ and a mass history the next batch's rows do not determine; (2) β = 1 − 1/W is
 * chosen for the batch's W workers (automatic {@code numWorkers} follows the task slots when each
 * batch starts, which may differ after a restart), and Δ extrapolates the previous batch's rows,
 * which a drifting stream may no longer resemble; (3) the learner state stays what the online
 * perceptron needs (w, u, c), so persisting it after every batch costs no third dense K'·(d+1)
 * array. The cost: momentum builds up over about W rounds, so it helps a batch only when its
 * epochs have that many rounds (automatic rounds: min(W, 64) per epoch).
 * Tested against a naive simulation that restarts per batch
 * ({@code StreamingPerceptronTest.blockMomentumRestartsAtEveryBatch}).
 *
 * <p>Before learning, the batch is scored by the model as it stood (prequential, "test then
 * train", evaluation: Dawid 1984; Gama, Sebastião &amp; Rodrigues 2013), in one extra pass over
 * the cached blocks.
 */
public final class OnlineTraining {
  private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

  private OnlineTraining() {
  }

  /** What one micro-batch did. Internal, like the class. */
  public static final class BatchOutcome {
    /** The learner state after the batch; the starting state when nothing was learned. */
    public final LinearState state;
    public final int numClasses;
    public final int numFeatures;
    /** Rows in the batch (rows with weight 0 included). */
    public final long rows;
    /** Rows the model predicted correctly before learning from the batch. */
    public final long prequentialCorrect;
    /** Σ of the rows' sample weights: how far the averaging clock moved per epoch. */
    public final double weight;
    /** Updates made, summed over the batch's epochs. */
    public final long updates;
    /** Examples with margin ≤ 0 met during the batch's first epoch (online mistakes). */
    public final long onlineMistakes;
    public final int epochs;
    /** The workers the batch was laid out over. */
    public final int workers;

    /**
     * @param input the batch
     * @param result its training, or null when nothing was learnt
     */
    BatchOutcome(LinearState state, int numClasses, int numFeatures, TrainingInput input,
        long prequentialCorrect, TrainingResult result) {
      this.state = state;
      this.numClasses = numClasses;
      this.numFeatures = numFeatures;
      this.rows = input.numRows;
      this.prequentialCorrect = prequentialCorrect;
      this.weight = result == null ? 0.0 : input.totalWeight;
      long sum = 0;
      if (result != null) {
        for (EpochStats e : result.epochs()) {
          sum += e.updates;
        }
      }
      this.updates = sum;
      this.onlineMistakes = result == null || result.epochs().isEmpty() ? 0
          : result.epochs().get(0).mistakes;
      this.epochs = result == null ? 0 : result.epochs().size();
      this.workers = input.numWorkers;
    }
  }

  /**
   * Scores {@code batch} with the model of {@code start}, then trains on it for {@code epochs}
   * epochs with {@code config}'s settings (update rule, averaging, mixing, step size, shuffle,
   * ...).
   *
   * @param start the state the previous batch left, or {@code null} for the first batch (the
   *     state then starts at zero, or at the configuration's initial weights)
   * @param numClasses with {@code start}: the model's K; for the first batch: K if the caller
   *     fixed it, else 0 to take it from the label metadata or the largest label
   * @param numFeatures with {@code start}: the model's d (ignored for the first batch)
   * @param batchId seeds the batch's shuffles, so that reruns give the same model
   * @return the outcome; for a first batch without rows its state is {@code null}
   * @throws IllegalArgumentException for a bad row, a label beyond K or a vector not of size d
   */
  public static BatchOutcome trainBatch(Dataset<?> batch, TrainingConfig config, int epochs,
      long batchId, LinearState start, int numClasses, int numFeatures) {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(batch.sparkSession().sparkContext());
    TrainingConfig batchConfig = config.forBatch(epochs, batchSeed(config.seed, batchId));
    // Each batch is laid out over numWorkers workers as fit lays out a dataset (automatic: the
    // task slots when the batch starts).
    try (TrainingInput input = TrainingInput.prepare(batch, batchConfig,
        jsc.sc().defaultParallelism(), true)) {
      if (start == null && input.numRows == 0) {
        return new BatchOutcome(null, numClasses, -1, input, 0, null);
      }
      int k = start != null || numClasses > 0 ? numClasses : input.numClasses;
      int d = start != null ? numFeatures : input.numFeatures;
      if (input.numRows > 0 && input.numFeatures != d) {
        throw new IllegalArgumentException(String.format(Locale.ROOT, "Column '%s' (featuresCol)"
            + " holds vectors of size %d in this batch, but the model has %d features, fixed by"
            + " the first batch it learnt from; every batch must have vectors of one size",
            config.featuresCol, input.numFeatures, d));
      }
      if (input.numClasses > k) {
        throw new IllegalArgumentException(labelBeyondClasses(config, input, k));
      }
      LearnerConfig learner = batchConfig.learner(d, k, null);
      LinearState from = start != null ? start : batchConfig.initialState(learner);
      long correct = prequentialCorrect(jsc, input, learner, config.threshold, from);
      if (input.numRows == 0 || !(input.totalWeight > 0)) {
        return new BatchOutcome(from, k, d, input, correct, null);
      }
      // The same rounds, block momentum β = 1 − 1/W and bound ρ as fit() resolves for this
      // batch's W workers and rows; a fresh BlockMomentum each batch (see the class doc).
      TrainingResult result = new MixingLoop(jsc, input, learner, batchConfig)
          .run(from, null, null);
      return new BatchOutcome(result.finalState(), k, d, input, correct, result);
    }
  }

  /** A seed of its own for every batch, so that batches are not all shuffled alike. */
  static long batchSeed(long seed, long batchId) {
    return seed ^ (GOLDEN_GAMMA * (batchId + 1));
  }

  private static long prequentialCorrect(JavaSparkContext jsc, TrainingInput input,
      LearnerConfig learner, double threshold, LinearState state) {
    if (input.numRows == 0) {
      return 0;
    }
    Predictor predictor = Predictor.linear(learner.numClasses(), learner.numFeatures(),
        threshold, state.modelWeights());
    Broadcast<Predictor> broadcast = jsc.broadcast(predictor);
    try {
      List<Long> counts = input.blocks.map(part -> correct(broadcast.value(), part.block))
          .collect();
      long correct = 0;
      for (long c : counts) {
        correct += c;
      }
      return correct;
    } finally {
      broadcast.destroy();
    }
  }

  private static long correct(Predictor model, TrainingBlock block) {
    if (block == null) {
      return 0L;
    }
    // The block's rows are numbered by the worker's own features.
    Predictor predictor = block.localFeatures() == null ? model
        : model.forFeatures(block.localFeatures());
    long correct = 0;
    for (int r = 0; r < block.numRows(); r++) {
      if (predictor.predict(block.features(), r, null, null) == block.label(r)) {
        correct++;
      }
    }
    return correct;
  }

  private static String labelBeyondClasses(TrainingConfig config, TrainingInput input, int k) {
    int label = input.classCounts.length - 1;
    while (label >= k && input.classCounts[label] == 0) {
      label--;
    }
    String what = label >= k
        ? "has label " + label + " in " + input.classCounts[label] + " rows of this batch"
        : "declares " + input.numClasses + " classes in its metadata in this batch";
    return String.format(Locale.ROOT, "Column '%s' (labelCol) %s, but the model has %d classes"
        + " (labels 0..%d), fixed when it began learning (by numClasses, the label column's"
        + " metadata or the first batch's largest label); a stream cannot add classes later."
        + " Start a new stream with numClasses set to the total number of classes (submit/"
        + "stream-train: --num-classes), or drop these rows", config.labelCol, what, k,
        k - 1);
  }
}
