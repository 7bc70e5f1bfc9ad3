package io.github.sparkperceptron.internal.rounds;

import io.github.sparkperceptron.internal.blocks.PartitionJob;
import io.github.sparkperceptron.internal.blocks.WorkerBlocks;
import io.github.sparkperceptron.internal.exchange.WeightsRef;
import io.github.sparkperceptron.internal.kernel.SortedCoordinates;
import io.github.sparkperceptron.internal.mixing.ParameterMix;
import io.github.sparkperceptron.internal.mixing.WorkerResult;
import io.github.sparkperceptron.internal.plan.MixingSettings;
import java.util.Collections;
import java.util.Iterator;
import java.util.Locale;
import org.apache.spark.api.java.function.Function2;

/**
 * The epoch's rounds as one Spark job each: the driver's steps of every round
 * ({@link DriverRounds}: look-ahead, apply, clock) around a job that ships the round's weights,
 * lets every worker run its slice of the epoch's rows from them ({@link WorkerRound}; round r of
 * R visits the r-th consecutive slice of the worker's epoch order) and combines the workers'
 * changes ({@code StateDelta}, only the coordinates each touched) with {@code treeAggregate}
 * into a {@link ParameterMix} (order-independent, so bit-reproducible).
 */
public final class JobPerRound implements EpochRounds {
  private final DriverRounds driver;

  public JobPerRound(DriverRounds driver) {
    this.driver = driver;
  }

  @Override
  public Outcome run(int epoch, int lastEpoch) {
    return driver.run(epoch, this::job);
  }

  /** Round {@code round} as one Spark job: ship, train every worker's slice, mix. */
  private WorkerResult job(int epoch, int round, int startVector, double startClock,
      double roundEnd) {
    MixingSettings settings = driver.settings;
    int rounds = settings.rounds;
    driver.jsc.setJobDescription(rounds == 1
        ? String.format(Locale.ROOT, "perceptron epoch %d/%d (%s mixing)", epoch,
            settings.maxIter, settings.mixing.paramValue())
        : String.format(Locale.ROOT, "perceptron epoch %d/%d, round %d/%d (%s mixing)",
            epoch, settings.maxIter, round + 1, rounds, settings.mixing.paramValue()));
    WeightsRef weights = driver.shipper.ship(driver.progress.state.weights());
    RoundTask task = new RoundTask(driver.workerSpec, weights, epoch, round, startVector,
        startClock, roundEnd);
    return PartitionJob.aggregate(driver.input.blocks.rdd(), task,
        new ParameterMix(driver.input.numWorkers), ParameterMix::add, ParameterMix::merge,
        driver.plan.memory().roundAggregationDepth()).result();
  }

  /** The task body of one mixing round: the worker's round from the shipped weights. */
  private static final class RoundTask
      implements Function2<Integer, Iterator<WorkerBlocks>, Iterator<WorkerResult>> {
    private static final long serialVersionUID = 1L;
    private final WorkerRound.Spec spec;
    private final WeightsRef weights;
    private final int epoch;
    private final int round;
    /** The vote's start vector of this round, or −1 without a vote. */
    private final int startVector;
    private final double startClock;
    private final double roundEnd;

    RoundTask(WorkerRound.Spec spec, WeightsRef weights, int epoch, int round, int startVector,
        double startClock, double roundEnd) {
      this.spec = spec;
      this.weights = weights;
      this.epoch = epoch;
      this.round = round;
      this.startVector = startVector;
      this.startClock = startClock;
      this.roundEnd = roundEnd;
    }

    @Override
    public Iterator<WorkerResult> call(Integer worker, Iterator<WorkerBlocks> parts) {
      WorkerRound work = WorkerRound.forRound(spec, parts.next(), worker, epoch, weights);
      WorkerResult result = work.run(round, startClock, roundEnd, startVector);
      work.release(SortedCoordinates.NONE);
      return Collections.singletonList(result).iterator();
    }
  }
}
