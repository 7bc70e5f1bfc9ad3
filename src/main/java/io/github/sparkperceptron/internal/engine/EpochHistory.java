package io.github.sparkperceptron.internal.engine;

import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.rounds.TrainingProgress;
import io.github.sparkperceptron.internal.store.StateFile.Unreadable;
import io.github.sparkperceptron.internal.store.StateFile;
import io.github.sparkperceptron.internal.store.StateReader;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * What a training's epochs did, epoch by epoch, with its one codec: the HISTORY section that a
 * checkpoint ({@link CheckpointFormat}) and a training summary's file (Spark Connect's model
 * cache) both write, and what {@link TrainingResult} hands to the summary.
 *
 * <pre>
 * HISTORY  int n, then n × (long examples, double weightSeen, long mistakes, long updates,
 *          double perceptronLoss, double hingeLoss, long nonFiniteMargins, double stepSum,
 *          double weightChange, double seconds, long[] workerUpdates),
 *          then double[] validationAccuracy
 * </pre>
 *
 * @param epochs per epoch, the counts and losses summed over the workers
 * @param weightChanges per epoch, ‖w_n − w_(n−1)‖ / ‖w_n‖ of the mixed weights (NaN for
 *     one-shot mixing)
 * @param seconds per epoch, its wall-clock seconds
 * @param workerUpdates per epoch, the updates of each worker
 * @param validationAccuracy per epoch, the accuracy on the validation rows (empty without them)
 */
public record EpochHistory(List<EpochStats> epochs, double[] weightChanges, double[] seconds,
    long[][] workerUpdates, double[] validationAccuracy) implements Serializable {

  /** The history {@code p} recorded so far (copied). */
  public static EpochHistory of(TrainingProgress p) {
    return new EpochHistory(List.copyOf(p.epochs), toArray(p.weightChanges),
        toArray(p.seconds), p.workerUpdates.toArray(new long[0][]),
        toArray(p.validationAccuracy));
  }

  /** No epoch run. */
  public static EpochHistory none() {
    return new EpochHistory(List.of(), new double[0], new double[0], new long[0][],
        new double[0]);
  }

  private static double[] toArray(List<Double> values) {
    double[] out = new double[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i);
    }
    return out;
  }

  /** Epochs run. */
  public int size() {
    return epochs.size();
  }

  /** Appends this history to {@code p}'s (a checkpoint resumed). */
  public void appendTo(TrainingProgress p) {
    for (int e = 0; e < size(); e++) {
      p.epochs.add(epochs.get(e));
      p.weightChanges.add(weightChanges[e]);
      p.seconds.add(seconds[e]);
      p.workerUpdates.add(workerUpdates[e]);
    }
    for (double v : validationAccuracy) {
      p.validationAccuracy.add(v);
    }
  }

  /** Writes the HISTORY section's contents. */
  public void write(StateFile.Out o) throws IOException {
    o.writeInt(size());
    for (int e = 0; e < size(); e++) {
      EpochStats s = epochs.get(e);
      o.writeLong(s.examples);
      o.writeDouble(s.weightSeen);
      o.writeLong(s.mistakes);
      o.writeLong(s.updates);
      o.writeDouble(s.perceptronLoss);
      o.writeDouble(s.hingeLoss);
      o.writeLong(s.nonFiniteMargins);
      o.writeDouble(s.stepSum);
      o.writeDouble(weightChanges[e]);
      o.writeDouble(seconds[e]);
      o.writeLongs(workerUpdates[e]);
    }
    o.writeDoubles(validationAccuracy, validationAccuracy.length);
  }

  /**
   * Reads what {@link #write} wrote, of a training of {@code numWorkers} workers: every epoch
   * must record that many, and the validation accuracies at most one per epoch.
   */
  public static EpochHistory read(StateReader in, int numWorkers)
      throws IOException, Unreadable {
    // 8 stats, 2 doubles and the worker array's length: at least 84 bytes per epoch.
    int n = in.readCount(84);
    List<EpochStats> epochs = new ArrayList<>(n);
    double[] weightChanges = new double[n];
    double[] seconds = new double[n];
    long[][] workerUpdates = new long[n][];
    for (int e = 0; e < n; e++) {
      EpochStats s = new EpochStats();
      s.examples = in.readLong();
      s.weightSeen = in.readDouble();
      s.mistakes = in.readLong();
      s.updates = in.readLong();
      s.perceptronLoss = in.readDouble();
      s.hingeLoss = in.readDouble();
      s.nonFiniteMargins = in.readLong();
      s.stepSum = in.readDouble();
      epochs.add(s);
      weightChanges[e] = in.readDouble();
      seconds[e] = in.readDouble();
      workerUpdates[e] = in.readLongs();
      if (workerUpdates[e].length != numWorkers) {
        throw in.damaged("epoch " + (e + 1) + " records " + workerUpdates[e].length
            + " workers, this training has " + numWorkers);
      }
    }
    double[] validation = in.readDoubles();
    if (validation.length > n) {
      throw in.damaged("it records " + validation.length + " validation accuracies for " + n
          + " epochs");
    }
    return new EpochHistory(epochs, weightChanges, seconds, workerUpdates, validation);
  }
}
