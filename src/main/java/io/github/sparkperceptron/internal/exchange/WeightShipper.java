package io.github.sparkperceptron.internal.exchange;

import io.github.sparkperceptron.internal.kernel.TouchedSet;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;

/**
 * The driver's side of shipping the weights to the executors, one version per mixing round: the
 * first round broadcasts a snapshot, later rounds only the coordinates the driver changed since
 * the round before (see the package documentation). Not thread-safe; one per training.
 */
public final class WeightShipper implements AutoCloseable {
  /**
   * The chain of changes after a snapshot is replaced by a new snapshot once it would hold more
   * than this share of the weights' length: from there an executor that needs everything (a new
   * one) would read more than a snapshot.
   */
  static final double RESNAPSHOT_ABOVE = 0.25;

  private final JavaSparkContext jsc;
  private final String training;
  private final int length;
  private final TouchedSet changed;
  private long version;
  private Broadcast<WeightVersion> snapshot;
  private final List<Broadcast<WeightVersion>> chain = new ArrayList<>();
  private long chainValues;
  private long shippedValues;
  private int snapshots;

  /**
   * @param training a name no other training in this application uses (it keys the executors'
   *     copies)
   * @param length the weights' length K'·(d+1)
   */
  public WeightShipper(JavaSparkContext jsc, String training, int length) {
    this.jsc = jsc;
    this.training = training;
    this.length = length;
    this.changed = new TouchedSet(length);
  }

  /** Records that the driver wrote coordinate {@code j} since the last shipment. */
  public void changed(int j) {
    changed.mark(j);
  }

  /** Records the coordinates a mixed change wrote. */
  public void changed(StateDelta delta) {
    int n = delta.storedEntries();
    for (int k = 0; k < n; k++) {
      changed.mark(delta.coordinate(k));
    }
  }

  /** The set to mark changed coordinates in (e.g. by block momentum's look-ahead). */
  public TouchedSet changedSet() {
    return changed;
  }

  /**
   * Ships {@code weights} as the next version and returns what this round's tasks need to read
   * it. Every coordinate the driver wrote since the previous call must have been recorded.
   */
  public WeightsRef ship(double[] weights) {
    if (weights.length != length) {
      throw new IllegalArgumentException("weights of length " + weights.length + ", expected "
          + length);
    }
    version++;
    if (snapshot == null || chainValues + changed.count() > RESNAPSHOT_ABOVE * length) {
      changed.clear();
      destroyAll();
      boolean allZero = true;
      for (double w : weights) {
        if (w != 0.0) {
          allZero = false;
          break;
        }
      }
      // A copy: in local mode the executors read the broadcast object itself.
      snapshot = jsc.broadcast(WeightVersion.snapshot(version, allZero ? null : weights.clone(),
          allZero));
      snapshots++;
      shippedValues += allZero ? 0 : length;
    } else {
      int[] index = changed.drain();
      double[] values = new double[index.length];
      for (int k = 0; k < index.length; k++) {
        values[k] = weights[index[k]];
      }
      chain.add(jsc.broadcast(WeightVersion.changes(version, index, values)));
      chainValues += index.length;
      shippedValues += index.length;
    }
    return new WeightsRef(training, length, version, snapshot, new ArrayList<>(chain));
  }

  /** Values broadcast so far (snapshots and changes), for the log and benchmarks. */
  public long shippedValues() {
    return shippedValues;
  }

  /** Snapshots broadcast so far. */
  public int snapshots() {
    return snapshots;
  }

  private void destroyAll() {
    for (Broadcast<WeightVersion> b : chain) {
      b.destroy();
    }
    chain.clear();
    chainValues = 0;
    if (snapshot != null) {
      snapshot.destroy();
      snapshot = null;
    }
  }

  /** Destroys the broadcasts and forgets this training's copies in this JVM's executor cache. */
  @Override
  public void close() {
    destroyAll();
    ExecutorWeights.forget(training);
  }
}
