package io.github.sparkperceptron.internal.exchange;

import java.io.Serializable;
import java.util.List;
import org.apache.spark.broadcast.Broadcast;

/**
 * What a round's tasks carry to reach the driver's weights of that round: the training, the
 * version, and the broadcasts of the snapshot and of every change after it. Small: a task
 * serialises handles, and an executor fetches only the broadcasts it lacks.
 */
public final class WeightsRef implements Serializable {
  private static final long serialVersionUID = 1L;

  final String training;
  final int length;
  final long version;
  final Broadcast<WeightVersion> snapshot;
  /** The changes after the snapshot, oldest first, the last one producing {@link #version}. */
  final List<Broadcast<WeightVersion>> changes;

  WeightsRef(String training, int length, long version, Broadcast<WeightVersion> snapshot,
      List<Broadcast<WeightVersion>> changes) {
    this.training = training;
    this.length = length;
    this.version = version;
    this.snapshot = snapshot;
    this.changes = changes;
  }

  /** Whether {@code other} names the same weights: the same training, the same version. */
  public boolean sameVersion(WeightsRef other) {
    return training.equals(other.training) && version == other.version;
  }

  /** The version these weights are (one per mixing round). */
  public long version() {
    return version;
  }
}
