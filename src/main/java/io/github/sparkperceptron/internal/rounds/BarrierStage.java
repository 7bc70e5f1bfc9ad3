package io.github.sparkperceptron.internal.rounds;

import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.mixing.BlockMomentum;
import io.github.sparkperceptron.internal.mixing.ParameterMix;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import io.github.sparkperceptron.internal.mixing.WorkerResult;
import io.github.sparkperceptron.internal.plan.Settings;
import java.util.Locale;

/**
 * What the W workers of one barrier stage ({@link BarrierRounds}, {@link BarrierEpochTask})
 * returned, epoch by epoch, beside how it started, and how the driver reads it: each round's
 * mix of the workers' counts, with the reported mix for a replay ({@link #mixed}) and
 * {@link MixAudit}'s check; the epoch's weight change as the workers measured it; the state the
 * stage ended with ({@link #adoptEnd}); and the digests that tie the workers to each other and
 * to the driver's state ({@link #requireAgreement}, {@link #verify}).
 */
final class BarrierStage {
  private final int firstEpoch;
  private final BarrierEpochTask.Output[] outputs;
  /** The vote's index of the stage's first start vector, or −1 without a vote. */
  private final int firstStartVector;
  private final int rounds;
  /**
   * Per epoch, the round whose own changes every worker reported ({@link MixAudit}), or −1 for
   * an epoch without audit.
   */
  private final int[] auditRounds;
  /** The epochs every worker ran (the same for all: they end early together). */
  private final int epochs;
  /**
   * Whether the stage's workers kept u and could report where they ended (then their digests
   * cover u), and whether they did, instead of every round's mix.
   */
  private final boolean mayReportEnd;
  final boolean endReported;
  /** The averaging clock at the stage's start, and at every round's end (the driver's). */
  private final BarrierEpochTask.Clock clock;
  /** Wall-clock seconds of the stage, for the epochs' times. */
  double seconds;

  BarrierStage(BarrierEpochTask.StageStart start, BarrierEpochTask.Output[] outputs) {
    this.firstEpoch = start.firstEpoch;
    this.outputs = outputs;
    this.firstStartVector = start.firstStartVector;
    this.rounds = start.rounds();
    this.auditRounds = start.auditRounds;
    this.mayReportEnd = start.endReport != null;
    this.endReported = outputs.length > 0 && outputs[BarrierEpochTask.END_REPORTER] != null
        && outputs[BarrierEpochTask.END_REPORTER].end != null;
    this.clock = start.clock;
    int ran = -1;
    for (int i = 0; i < outputs.length; i++) {
      if (outputs[i] == null) {
        throw new IllegalStateException("the barrier stage of epoch " + firstEpoch
            + " returned nothing for worker " + i);
      }
      if (ran >= 0 && outputs[i].epochs() != ran) {
        throw new IllegalStateException("the barrier stage of epoch " + firstEpoch
            + ": worker " + i + " ran " + outputs[i].epochs() + " epochs, worker 0 " + ran);
      }
      ran = outputs[i].epochs();
    }
    this.epochs = ran;
    if (endReported && !mayReportEnd) {
      throw new IllegalStateException("the barrier stage of epoch " + firstEpoch
          + ": worker " + BarrierEpochTask.END_REPORTER + " reported where it ended, which"
          + " the stage did not ask for");
    }
    if (!endReported && mayReportEnd && start.endReport.always) {
      // Its tasks kept no mix but the audited rounds': the driver could not replay the stage.
      throw new IllegalStateException("the barrier stage of epoch " + firstEpoch
          + ": worker " + BarrierEpochTask.END_REPORTER + " did not report where it ended,"
          + " which the stage asked for");
    }
  }

  int epochs() {
    return epochs;
  }

  /** One line on what the stage reported: its end state or its rounds' mixes, and their size. */
  String describeReport() {
    long mixEntries = 0;
    int mixes = 0;
    for (BarrierEpochTask.Output o : outputs) {
      for (StateDelta[] epochMixes : o.mixes) {
        for (StateDelta m : epochMixes) {
          if (m != null) {
            mixes++;
            mixEntries += m.storedEntries();
          }
        }
      }
    }
    String epochRange = epochs == 1 ? "epoch " + firstEpoch
        : "epochs " + firstEpoch + "-" + (firstEpoch + epochs - 1);
    if (endReported) {
      return String.format(Locale.ROOT, "The barrier stage of %s reported where it ended (%,d"
          + " coordinates) and %d audited mix(es) of %,d entries, not every round's mix",
          epochRange, outputs[BarrierEpochTask.END_REPORTER].end.support.length, mixes,
          mixEntries);
    }
    return String.format(Locale.ROOT, "The barrier stage of %s reported its %d rounds' mixes"
        + " (%,d entries) for the driver to replay", epochRange, mixes, mixEntries);
  }

  /** Whether {@code epoch} is the stage's last. */
  boolean isLast(int epoch) {
    return epoch == firstEpoch + epochs - 1;
  }

  /** The averaging clock at the start of {@code epoch} (the driver's values). */
  double epochClock(int epoch) {
    int e = epoch - firstEpoch;
    return clock.epochStart(e);
  }

  /** The relative change of the weights over {@code epoch}, as the workers measured it. */
  double weightChange(int epoch) {
    return outputs[BarrierEpochTask.END_REPORTER].weightChanges[epoch - firstEpoch];
  }

  /**
   * Checks that every worker ended {@code epoch} with the same state (digest), block momentum
   * included: the workers' own agreement, which a stage that reports only its end state
   * offers for the epochs before its last (the last is checked against the state taken,
   * {@link #verify}).
   */
  void requireAgreement(int epoch) {
    int e = epoch - firstEpoch;
    BarrierEpochTask.Output first = outputs[0];
    for (BarrierEpochTask.Output o : outputs) {
      if (o.weightsDigests[e] != first.weightsDigests[e]
          || Double.compare(o.momentumMass[e], first.momentumMass[e]) != 0
          || Double.compare(o.velocityMass[e], first.velocityMass[e]) != 0
          || o.restarts[e] != first.restarts[e]
          || Double.compare(o.weightChanges[e], first.weightChanges[e]) != 0) {
        throw endedElsewhere(epoch, o.worker, "worker " + first.worker);
      }
    }
  }

  /** Moves the driver's state to where the stage ended, after its last epoch. */
  void adoptEnd(DriverRounds driver, int epoch) {
    int e = epoch - firstEpoch;
    BarrierEpochTask.Output end = outputs[BarrierEpochTask.END_REPORTER];
    driver.adopt(epoch, end.end, clock.roundEnds[e][rounds - 1]);
  }

  /** Whether the stage ran {@code epoch}. */
  boolean covers(int epoch) {
    return epoch >= firstEpoch && epoch < firstEpoch + epochs;
  }

  /**
   * Round {@code round}'s mix of {@code epoch}, as the job-per-round path's
   * {@code treeAggregate} would have returned it: the workers' results mixed along
   * ParameterMix's tree (stats, masses, update counts, vote traces), the change being worker
   * 0's mix (the same bits: {@link io.github.sparkperceptron.internal.mixing.RoundTree}).
   */
  WorkerResult mixed(int epoch, int round, int startVector, double startClock,
      double roundEnd) {
    int e = epoch - firstEpoch;
    int expectedVector = firstStartVector + e * rounds + round;
    if (!covers(epoch) || (startVector >= 0 && startVector != expectedVector)) {
      throw new IllegalStateException("the replay of epoch " + epoch + ", round " + round
          + " does not match the barrier stage of epochs " + firstEpoch + ".."
          + (firstEpoch + epochs - 1) + " (vote start vector " + startVector + ", the workers"
          + " used " + expectedVector + ")");
    }
    ParameterMix mix = new ParameterMix(outputs.length);
    for (BarrierEpochTask.Output o : outputs) {
      mix.add(o.rounds[e][round]);
    }
    WorkerResult mixed = mix.result();
    StateDelta reported = outputs[BarrierEpochTask.reporter(e, round, rounds, outputs.length)]
        .mixes[e][round];
    if (round == auditRounds[e]) {
      MixAudit.check(epoch, round, mixed.delta(), reported);
    }
    // A stage that reports its end sends no mix outside the audited rounds.
    return reported == null ? mixed : mixed.withChange(reported);
  }

  /**
   * Checks, after the driver replayed {@code epoch} (or took the state the stage ended with),
   * that every worker ended it where the driver did: the same weights (by digest; with u too
   * where the stage reported its end) and the same block momentum. Both sides started the
   * stage from the same shipped weights and move them only inside the support, so the digest
   * covers the support: {@code written} (increasing), the driver's, which must be each
   * worker's (the digest covers the coordinates too).
   *
   * @throws IllegalStateException if one did not (a defect, never a property of the data)
   */
  void verify(int epoch, LinearState state, int[] written, BlockMomentum momentum) {
    int e = epoch - firstEpoch;
    long digest = digest(state.weights(), mayReportEnd ? state.averageAccumulator() : null,
        written);
    for (BarrierEpochTask.Output o : outputs) {
      boolean same = o.weightsDigests[e] == digest && (momentum == null
          || (Double.compare(o.momentumMass[e], momentum.mass()) == 0
              && Double.compare(o.velocityMass[e], momentum.velocityMass()) == 0
              && o.restarts[e] == momentum.restarts()));
      if (!same) {
        throw endedElsewhere(epoch, o.worker, "the driver's state");
      }
    }
  }

  /** A worker that ended {@code epoch} elsewhere than {@code reference}: a defect. */
  private static IllegalStateException endedElsewhere(int epoch, int worker, String reference) {
    return new IllegalStateException("Epoch " + epoch + ": worker " + worker + " of the barrier"
        + " stage ended with other weights than " + reference + ". This is a defect of"
        + " spark-perceptron; set " + Settings.ROUND_EXECUTION + "=jobs to train without barrier"
        + " stages");
  }

  /**
   * A digest of the bits of the weights {@code w} and of the averaging accumulator {@code u}
   * (may be null: not covered) at {@code coordinates} (increasing), and of the coordinates
   * themselves, in coordinate order: equal values at the same coordinates, equal digests.
   * O(coordinates): an epoch's check costs what the epoch wrote, not K'·(d+1).
   */
  static long digest(double[] w, double[] u, int[] coordinates) {
    long h = 1125899906842597L;
    for (int j : coordinates) {
      h = 31 * (31 * h + j) + Double.doubleToRawLongBits(w[j]);
      if (u != null) {
        h = 31 * h + Double.doubleToRawLongBits(u[j]);
      }
    }
    return h;
  }
}
