package io.github.sparkperceptron.internal.exchange;

import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LocalFeatures;
import io.github.sparkperceptron.internal.kernel.LocalWeights;
import io.github.sparkperceptron.internal.kernel.SortedCoordinates;
import io.github.sparkperceptron.internal.kernel.StateLayout;
import java.lang.ref.SoftReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.broadcast.Broadcast;

/**
 * The executor's side of shipping the weights: one current copy per training, brought up to the
 * round's version from the broadcasts it has not applied yet, and a pool of every worker's
 * working copy ({@link LocalWeights}: the worker's own features, in the kernel's layout),
 * resynchronised by the coordinates that changed instead of gathered whole.
 *
 * <p>Every copy a task receives equals the driver's weights of the task's round exactly at every
 * coordinate the worker holds (values are set, never added), however the executor got there
 * (cached copy plus changes, or snapshot plus changes), which is what keeps retries and
 * recomputations bit-identical. A task that fails never returns its working copy, so a
 * half-finished round cannot leak into a later one.
 *
 * <p>A worker's copy is tied to its block's feature map, so the pool keeps at most one idle copy
 * per worker, and idle copies only up to the bytes the training allows an executor (see
 * {@link #checkout}): one whose copy does not fit is dropped, and that worker's next round here
 * gathers a new one (O(K'·(m+1))). Incumbents stay rather than the least recently used going:
 * rounds visit the workers cyclically, where evicting the oldest would drop every copy before its
 * next use.
 *
 * <p>Trainings are held softly and at most {@value #MAX_TRAININGS} at a time, so that an
 * executor that outlives many trainings (a notebook's) does not accumulate their weights; a copy
 * that was dropped is rebuilt from the broadcasts.
 */
public final class ExecutorWeights {
  static final int MAX_TRAININGS = 4;
  private static final Map<String, SoftReference<Entry>> ENTRIES = new LinkedHashMap<>(8, 0.75f,
      true);

  private ExecutorWeights() {
  }

  /** One training's weights on this executor. */
  private static final class Entry {
    final int length;
    double[] base;
    long version = -1;
    long snapshotVersion = -1;
    /** The changes applied since the snapshot, oldest first. */
    final List<WeightVersion> applied = new ArrayList<>();
    /** Every worker's idle copy, by worker. */
    final Map<Integer, WorkerCopy> idle = new HashMap<>();
    /** Bytes the idle copies hold, and the most they may hold (the training's, see checkout). */
    long idleBytes;
    long idleBound;
    /** Idle private copies of all the weights ({@link #checkoutWhole}). */
    final List<WholeCopy> idleWhole = new ArrayList<>();

    Entry(int length) {
      this.length = length;
    }
  }

  /**
   * A worker's working copy for one task: the round's weights at the worker's own coordinates
   * ({@link LocalWeights}, with a zero averaging accumulator and an empty touched set) and the
   * round's weights as shipped. Hand it back with {@link #release} after the round.
   */
  public static final class WorkerCopy {
    private final Entry entry;
    private final int worker;
    private final LocalWeights weights;
    private long version;
    /** Global coordinates where the copy may differ from the weights of {@link #version}. */
    private int[] ownChanges = new int[0];

    private WorkerCopy(Entry entry, int worker, LocalWeights weights) {
      this.entry = entry;
      this.worker = worker;
      this.weights = weights;
    }

    /** The worker's copy of the round's weights, to train on (private to this task). */
    public LocalWeights weights() {
      return weights;
    }

    /** The round's weights as shipped, all K'·(d+1) of them (shared: read only). */
    public double[] base() {
      return entry.base;
    }
  }

  /**
   * A task's private copy of all K'·(d+1) weights of one version, which it may change in place (a
   * barrier task's base, which moves round by round, or block momentum's Δ). Copies are pooled per
   * training on the executor and brought to the next version at the coordinates that differ
   * (O(changes)), so that an epoch does not allocate and copy K'·(d+1) values per task.
   */
  public static final class WholeCopy {
    private final Entry entry;
    private final double[] values;
    private long version;
    /** Coordinates (increasing) where {@link #values} may differ from the weights of version. */
    private int[] differsAt = SortedCoordinates.NONE;

    private WholeCopy(Entry entry, double[] values, long version) {
      this.entry = entry;
      this.values = values;
      this.version = version;
    }

    /** The weights, the task's own until it hands them back. */
    public double[] values() {
      return values;
    }
  }

  /**
   * A private copy of the weights of the round {@code ref} describes: an idle one brought up to
   * date (set, not added, at the coordinates its last user changed and at every change applied
   * since its version; a full copy only after a new snapshot), or a new one (the first of each
   * task slot in a training). Hand it back with {@link #releaseWhole}; a task that fails never
   * does, and its copy is garbage.
   */
  public static WholeCopy checkoutWhole(WeightsRef ref) {
    Entry entry = entry(ref);
    synchronized (entry) {
      bringUpToDate(entry, ref);
      double[] base = entry.base;
      if (entry.idleWhole.isEmpty()) {
        return new WholeCopy(entry, base.clone(), entry.version);
      }
      WholeCopy c = entry.idleWhole.remove(entry.idleWhole.size() - 1);
      if (c.version < entry.snapshotVersion) {
        System.arraycopy(base, 0, c.values, 0, base.length);
      } else {
        for (int j : c.differsAt) {
          c.values[j] = base[j];
        }
        for (WeightVersion change : entry.applied) {
          if (change.version > c.version) {
            for (int j : change.index) {
              c.values[j] = base[j];
            }
          }
        }
      }
      c.differsAt = SortedCoordinates.NONE;
      c.version = entry.version;
      return c;
    }
  }

  /**
   * Hands a private copy back: {@code differsAt} (increasing) are the coordinates its user
   * changed since {@link #checkoutWhole}; elsewhere it must still hold the weights it was checked
   * out with.
   */
  public static void releaseWhole(WholeCopy c, int[] differsAt) {
    c.differsAt = differsAt;
    synchronized (c.entry) {
      c.entry.idleWhole.add(c);
    }
  }

  /**
   * The working copy of {@code worker} for a task of the round {@code ref} describes: the
   * worker's idle copy brought up to date (the coordinates it changed, and every change applied
   * since its version, mapped to its features; a full gather after a new snapshot), or a new one.
   *
   * @param learner the model's settings (d features, class-major)
   * @param features the worker's features (its block's map)
   * @param layout the copy's layout
   * @param idleBytes how many bytes of idle copies this executor may keep for the training
   */
  public static WorkerCopy checkout(WeightsRef ref, int worker, LearnerConfig learner,
      LocalFeatures features, StateLayout layout, long idleBytes) {
    Entry entry = entry(ref);
    synchronized (entry) {
      entry.idleBound = idleBytes;
      bringUpToDate(entry, ref);
      WorkerCopy c = entry.idle.remove(worker);
      if (c != null) {
        entry.idleBytes -= c.weights.sizeInBytes();
        if (c.weights.features().sameAs(features) && c.weights.config().layout() == layout) {
          resynchronise(c, entry);
          return c;
        }
      }
      c = new WorkerCopy(entry, worker, new LocalWeights(learner, features, layout));
      c.weights.load(entry.base);
      c.version = entry.version;
      return c;
    }
  }

  /**
   * Hands a working copy back after its round: {@code differsAt} are the global coordinates where
   * it may differ from the weights it was checked out with (its accumulator must be zero and its
   * touched set empty again); it is resynchronised there before the next use.
   */
  public static void release(WorkerCopy c, int[] differsAt) {
    c.ownChanges = differsAt;
    Entry entry = c.entry;
    synchronized (entry) {
      long bytes = c.weights.sizeInBytes();
      WorkerCopy other = entry.idle.get(c.worker);
      if (other != null || entry.idleBytes + bytes > entry.idleBound) {
        // A second copy of the worker (a speculative task's), or no room: keep the incumbents.
        return;
      }
      entry.idle.put(c.worker, c);
      entry.idleBytes += bytes;
    }
  }

  /**
   * The weights of the round {@code ref} describes, all of them (shared: read only; the
   * executor's copy of another version replaces them when a task of that version arrives).
   */
  public static double[] current(WeightsRef ref) {
    Entry entry = entry(ref);
    synchronized (entry) {
      bringUpToDate(entry, ref);
      return entry.base;
    }
  }

  private static Entry entry(WeightsRef ref) {
    synchronized (ENTRIES) {
      SoftReference<Entry> held = ENTRIES.get(ref.training);
      Entry entry = held == null ? null : held.get();
      if (entry == null || entry.length != ref.length) {
        entry = new Entry(ref.length);
        ENTRIES.put(ref.training, new SoftReference<>(entry));
        Iterator<String> oldest = ENTRIES.keySet().iterator();
        while (ENTRIES.size() > MAX_TRAININGS) {
          oldest.next();
          oldest.remove();
        }
      }
      return entry;
    }
  }

  private static void bringUpToDate(Entry entry, WeightsRef ref) {
    if (entry.version == ref.version) {
      return;
    }
    if (entry.version > ref.version) {
      // Only a task of a finished round (a speculative copy still running) can ask for a past
      // version; its result is discarded, so it only needs to stop.
      throw new IllegalStateException("round of weights version " + ref.version + " of "
          + ref.training + " arrived after version " + entry.version);
    }
    WeightVersion snapshot = ref.snapshot.value();
    if (entry.base == null || entry.version < snapshot.version) {
      entry.base = snapshot.values == null ? new double[ref.length] : snapshot.values.clone();
      entry.version = snapshot.version;
      entry.snapshotVersion = snapshot.version;
      entry.applied.clear();
    }
    for (Broadcast<WeightVersion> b : ref.changes) {
      WeightVersion change = b.value();
      if (change.version > entry.version && change.version <= ref.version) {
        change.applyTo(entry.base);
        entry.applied.add(change);
        entry.version = change.version;
      }
    }
    if (entry.version != ref.version) {
      throw new IllegalStateException("weights of " + ref.training + " reached version "
          + entry.version + " instead of " + ref.version);
    }
  }

  private static void resynchronise(WorkerCopy c, Entry entry) {
    double[] base = entry.base;
    if (c.version < entry.snapshotVersion) {
      c.weights.load(base);
    } else {
      c.weights.refresh(base, c.ownChanges);
      for (WeightVersion change : entry.applied) {
        if (change.version > c.version) {
          c.weights.refresh(base, change.index);
        }
      }
    }
    c.ownChanges = new int[0];
    c.version = entry.version;
  }

  /** Drops a training's copies from this JVM (the driver's, in local mode, when it ends). */
  static void forget(String training) {
    synchronized (ENTRIES) {
      ENTRIES.remove(training);
    }
  }
}
