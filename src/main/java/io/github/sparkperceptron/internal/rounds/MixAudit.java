package io.github.sparkperceptron.internal.rounds;

import io.github.sparkperceptron.internal.mixing.ParameterMix;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import io.github.sparkperceptron.internal.plan.BarrierPlan;
import io.github.sparkperceptron.internal.plan.Settings;
import java.util.Arrays;
import java.util.Random;

/**
 * An independent check of the reported mixes, the ones the driver replays (each round's mix
 * comes from one worker, {@link BarrierEpochTask#reporter}), where the workers otherwise report
 * only their statistics: once per epoch, in one round drawn at random, every worker also reports
 * its own change, and the driver mixes them itself with the job-per-round path's
 * {@link ParameterMix} and compares that mix with the reported one, bit for bit.
 *
 * <p>Why: the digest check ({@link BarrierRounds}) proves that every worker ended the epoch with
 * the weights the driver replayed, but the driver replays the reported mixes, so a defect of the
 * all-reduce that gave every worker the same wrong mix ({@code mixing/RoundTree}: a blend in the
 * wrong order, a frame decoded wrong) would pass it; the driver's own mix of the leaves would not.
 * A random round, not a fixed one, so that over the epochs every round can be drawn and no
 * defect can hide in the rounds a fixed choice never looks at.
 *
 * <p>Which epochs ({@link #draw}): where the stage reports every round's mix, the first of
 * every barrier stage, so that a defect that shows in every round fails the training in the
 * stage's first epoch, and further epochs drawn at random while the audited changes stay within
 * about a quarter of the reported mixes; where it reports only the state it ended with (the
 * default, {@link BarrierRounds}), one epoch drawn at random: the driver takes that state only
 * after it checked the audit, so nothing of a stage whose audit fails reaches the training. An
 * audited round sends W changes where the stage's reports send one mix per round, so auditing
 * every epoch doubled a stage's output at R = W = 2, which Spark serializes, compresses, writes
 * and reads back (BENCHMARKS.md, issue 32, measures it).
 *
 * <p>Cost: the audited rounds' changes of every worker travel to the driver, and the driver
 * mixes each audited round once: W − 1 blends of sparse changes.
 */
final class MixAudit {
  private MixAudit() {
  }

  /**
   * The audited round of each of a stage's {@code epochs} epochs, or −1 for an epoch without
   * audit. A stage that reports every round's mix: the first epoch always, and as many epochs in
   * all as the memory plan budgets for ({@link BarrierPlan#auditedEpochs}:
   * max(1, ⌈E·R / (4·W)⌉) of E epochs of R rounds over W workers), the others drawn uniformly,
   * each at a uniformly drawn round. A stage that may report only where it ended
   * ({@code mayReportEnd}), whose outputs are then one state and no mix: one epoch drawn
   * uniformly, at a uniformly drawn round, so that its W changes and the mix stay about the size
   * of the state the stage reports, and over many stages every epoch and round is audited.
   */
  static int[] draw(int epochs, int rounds, int workers, boolean mayReportEnd, Random random) {
    int[] auditRounds = new int[epochs];
    Arrays.fill(auditRounds, -1);
    if (mayReportEnd) {
      if (epochs > 0) {
        auditRounds[random.nextInt(epochs)] = random.nextInt(rounds);
      }
      return auditRounds;
    }
    int audited = BarrierPlan.auditedEpochs(epochs, rounds, workers);
    // A partial Fisher-Yates shuffle of epochs 1..E−1 picks the audited ones after the first.
    int[] later = new int[Math.max(0, epochs - 1)];
    for (int i = 0; i < later.length; i++) {
      later[i] = i + 1;
    }
    if (epochs > 0) {
      auditRounds[0] = random.nextInt(rounds);
    }
    for (int k = 0; k < audited - 1; k++) {
      int pick = k + random.nextInt(later.length - k);
      int e = later[pick];
      later[pick] = later[k];
      later[k] = e;
      auditRounds[e] = random.nextInt(rounds);
    }
    return auditRounds;
  }

  /**
   * Checks that {@code driverMix}, the driver's {@link ParameterMix} of the workers' own changes
   * of round {@code round}, changes the state exactly as {@code workerMix}, the mix the round's
   * reporter applied.
   *
   * @throws IllegalStateException when they differ (a defect, never a property of the data)
   */
  static void check(int epoch, int round, StateDelta driverMix, StateDelta workerMix) {
    if (!sameChange(driverMix, workerMix)) {
      throw new IllegalStateException("Epoch " + epoch + ", round " + round + ": the reported mix"
          + " of the barrier stage differs from the driver's mix of the workers' changes (the"
          + " audit of the all-reduce). This is a defect of spark-perceptron; set "
          + Settings.ROUND_EXECUTION + "=jobs to train without barrier stages");
    }
  }

  /**
   * Whether two changes write the same bits into any state: at every coordinate the same weight
   * and average change, a coordinate one of them does not store counting as +0.0, and −0.0 as
   * +0.0 ({@link StateDelta#applyTo} skips both), whatever their representations.
   */
  static boolean sameChange(StateDelta a, StateDelta b) {
    if (a.length() != b.length() || a.hasAverage() != b.hasAverage()) {
      return false;
    }
    int na = a.storedEntries();
    int nb = b.storedEntries();
    int x = 0;
    int y = 0;
    while (x < na || y < nb) {
      int ja = x < na ? a.coordinate(x) : Integer.MAX_VALUE;
      int jb = y < nb ? b.coordinate(y) : Integer.MAX_VALUE;
      int j = Math.min(ja, jb);
      double wa = ja == j ? a.weightChange(x) : 0.0;
      double ua = ja == j ? a.averageChange(x) : 0.0;
      double wb = jb == j ? b.weightChange(y) : 0.0;
      double ub = jb == j ? b.averageChange(y) : 0.0;
      if (!sameBits(wa, wb) || !sameBits(ua, ub)) {
        return false;
      }
      x += ja == j ? 1 : 0;
      y += jb == j ? 1 : 0;
    }
    return true;
  }

  private static boolean sameBits(double p, double q) {
    return Double.doubleToLongBits(p + 0.0) == Double.doubleToLongBits(q + 0.0);
  }
}
