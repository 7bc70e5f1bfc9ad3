package io.github.sparkperceptron.internal.rounds;

import io.github.sparkperceptron.internal.blocks.WorkerBlocks;
import io.github.sparkperceptron.internal.exchange.ExecutorWeights;
import io.github.sparkperceptron.internal.exchange.WeightsRef;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.Predictor;
import io.github.sparkperceptron.internal.kernel.SortedCoordinates;
import io.github.sparkperceptron.internal.mixing.ParameterMix;
import io.github.sparkperceptron.internal.mixing.WorkerResult;
import io.github.sparkperceptron.internal.plan.MixingSettings;
import java.io.Serializable;
import java.lang.ref.SoftReference;
import java.util.Collections;
import java.util.Iterator;
import org.apache.spark.api.java.function.Function2;

/**
 * The task of a stream's micro-batch on one worker, after its rows are converted into the
 * worker's block: score every row with the model as it stood before the batch (prequential, "test
 * then train": Dawid 1984; Gama, Sebastião &amp; Rodrigues 2013), then, when the batch is learnt in
 * the same job, run the worker's mixing round ({@link WorkerRound}, the worker's side of every
 * round of the training); and return the worker's facts for the driver's checks with both. A worker whose rows
 * have a problem, or do not fit the model (vector size, a label beyond its classes), neither
 * scores nor trains: the driver refuses the batch before anything is applied.
 *
 * <p>The model scored with is the averaged model w − u/c (w when not averaging), each value
 * computed as {@code LinearState.modelWeights} computes it, from the weights w and accumulator u
 * the stream's shippers keep on the executor ({@link ExecutorWeights#current}) and the batch's
 * starting clock c: the counts are those of scoring with the driver's model, and only what
 * changed since the previous batch crossed the network. The model is built once per executor
 * and batch and shared by its tasks; a worker's block is numbered by its own features, so it is
 * scored through {@link Predictor#forFeatures}.
 */
public final class MicroBatchTask
    implements Function2<Integer, Iterator<WorkerBlocks>, Iterator<MicroBatchTask.Result>> {
  private static final long serialVersionUID = 1L;

  /** The last scoring model this executor built: (stream, versions, clock) → predictor. */
  private static SoftReference<Scorer> lastScorer = new SoftReference<>(null);

  private final int numWorkers;
  /** The model before the batch, or null: facts only. */
  private final Model model;
  /** The learner and settings of the batch's one round, or null when this job does not train. */
  private final LearnerConfig learner;
  private final MixingSettings settings;
  /** The bytes of idle working copies an executor may keep ({@link WorkerRound.Spec}). */
  private final long idleCopyBytes;

  private MicroBatchTask(int numWorkers, Model model, LearnerConfig learner,
      MixingSettings settings, long idleCopyBytes) {
    this.numWorkers = numWorkers;
    this.model = model;
    this.learner = learner;
    this.settings = settings;
    this.idleCopyBytes = idleCopyBytes;
  }

  /**
   * The model before a batch as the executors reach it: its shape, the weights w (the round's
   * weights when the job trains), the averaging accumulator u (null when not averaging), the
   * clock c and the binary threshold.
   */
  public static final class Model implements Serializable {
    private static final long serialVersionUID = 1L;
    final int numClasses;
    final int numFeatures;
    final WeightsRef weights;
    final WeightsRef accumulator;
    final double clock;
    final double threshold;

    public Model(int numClasses, int numFeatures, WeightsRef weights, WeightsRef accumulator,
        double clock, double threshold) {
      this.numClasses = numClasses;
      this.numFeatures = numFeatures;
      this.weights = weights;
      this.accumulator = accumulator;
      this.clock = clock;
      this.threshold = threshold;
    }

    /** Whether {@code other} is the same model (the same versions, clock and threshold). */
    boolean same(Model other) {
      return weights.sameVersion(other.weights)
          && (accumulator == null ? other.accumulator == null
              : other.accumulator != null && accumulator.sameVersion(other.accumulator))
          && Double.doubleToLongBits(clock) == Double.doubleToLongBits(other.clock)
          && Double.compare(threshold, other.threshold) == 0
          && numClasses == other.numClasses && numFeatures == other.numFeatures;
    }
  }

  /** Facts only (the first batch, whose model's shape the facts decide). */
  public static MicroBatchTask factsOnly(int numWorkers) {
    return new MicroBatchTask(numWorkers, null, null, null, 0L);
  }

  /** Facts and prequential counts; the batch is learnt by later jobs. */
  public static MicroBatchTask score(int numWorkers, Model model) {
    return new MicroBatchTask(numWorkers, model, null, null, 0L);
  }

  /**
   * Facts, prequential counts and the batch's only round, from the model's weights at its clock:
   * the whole micro-batch in one job. The workers must know T = Σ_j T_j (their round spans
   * [c, c + T] of the averaging clock): with one worker it is its own, in a split layout dealt
   * without a shuffle every worker counted every worker's weight
   * ({@link WorkerBlocks#totalWeightOfAll}), and without averaging it plays no part.
   *
   * @param idleCopyBytes the bytes of idle working copies an executor may keep between rounds
   *     ({@link MemoryPlan#idleCopyBytes(LearnerConfig, int, org.apache.spark.SparkContext)})
   */
  public static MicroBatchTask scoreAndTrain(int numWorkers, Model model, LearnerConfig learner,
      MixingSettings settings, long idleCopyBytes) {
    return new MicroBatchTask(numWorkers, model, learner, settings, idleCopyBytes);
  }

  /** What the workers of a micro-batch return, combined along any tree (order-independent). */
  public static final class Result implements Serializable {
    private static final long serialVersionUID = 1L;
    /** Each worker's facts ({@link WorkerBlocks#factsOnly}), by worker. */
    public final WorkerBlocks[] facts;
    /** Rows predicted correctly by the model before the batch. */
    public long prequentialCorrect;
    /** The workers' round, mixed along ParameterMix's fixed tree; null when not trained. */
    public ParameterMix mix;
    /**
     * T as every training worker computed it (all must agree), NaN before any, or −∞ when two
     * disagreed (a defect the driver reports).
     */
    public double totalWeight = Double.NaN;

    public Result(int numWorkers) {
      this.facts = new WorkerBlocks[numWorkers];
    }

    /** Adds {@code other}'s workers to these; returns this. */
    public Result merge(Result other) {
      for (int j = 0; j < facts.length; j++) {
        if (other.facts[j] != null) {
          facts[j] = other.facts[j];
        }
      }
      prequentialCorrect += other.prequentialCorrect;
      if (other.mix != null) {
        mix = mix == null ? other.mix : mix.merge(other.mix);
      }
      if (Double.isNaN(totalWeight)) {
        totalWeight = other.totalWeight;
      } else if (!Double.isNaN(other.totalWeight) && Double.doubleToLongBits(totalWeight)
          != Double.doubleToLongBits(other.totalWeight)) {
        totalWeight = Double.NEGATIVE_INFINITY;
      }
      return this;
    }
  }

  @Override
  public Iterator<Result> call(Integer worker, Iterator<WorkerBlocks> parts) {
    WorkerBlocks part = parts.next();
    Result result = new Result(numWorkers);
    result.facts[worker] = part.factsOnly();
    if (model == null || !part.fits(model.numFeatures, model.numClasses)) {
      return Collections.singletonList(result).iterator();
    }
    result.prequentialCorrect = correct(scorer().predictor, part);
    if (learner != null) {
      double total = part.totalWeightOfAll();
      result.totalWeight = total;
      WorkerRound.Spec spec = new WorkerRound.Spec(learner, settings, numWorkers, total,
          idleCopyBytes);
      WorkerRound round = WorkerRound.forRound(spec, part, worker, 1, model.weights);
      WorkerResult mine = round.run(0, model.clock, model.clock + total, -1);
      round.release(SortedCoordinates.NONE);
      result.mix = new ParameterMix(numWorkers).add(mine);
    }
    return Collections.singletonList(result).iterator();
  }

  private static long correct(Predictor model, WorkerBlocks part) {
    long[] correct = new long[1];
    part.forEachTrainingChunk(block -> {
      // The chunks' rows are numbered by the worker's own features.
      Predictor predictor = block.localFeatures() == null ? model
          : model.forFeatures(block.localFeatures());
      for (int r = 0; r < block.numRows(); r++) {
        if (predictor.predict(block.features(), r, null, null) == block.label(r)) {
          correct[0]++;
        }
      }
    });
    return correct[0];
  }

  /** The model before the batch on this executor, built by the first of the batch's tasks. */
  private Scorer scorer() {
    synchronized (MicroBatchTask.class) {
      Scorer last = lastScorer.get();
      if (last != null && last.model.same(model)) {
        return last;
      }
      double[] averaged = ExecutorWeights.current(model.weights).clone();
      if (model.accumulator != null && model.clock > 0) {
        double[] u = ExecutorWeights.current(model.accumulator);
        for (int j = 0; j < averaged.length; j++) {
          averaged[j] -= u[j] / model.clock;
        }
      }
      Scorer built = new Scorer(model, Predictor.linear(model.numClasses, model.numFeatures,
          model.threshold, averaged));
      lastScorer = new SoftReference<>(built);
      return built;
    }
  }

  /** A scoring predictor and the model it was built from. */
  private static final class Scorer {
    final Model model;
    final Predictor predictor;

    Scorer(Model model, Predictor predictor) {
      this.model = model;
      this.predictor = predictor;
    }
  }
}
