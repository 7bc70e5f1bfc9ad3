package io.github.sparkperceptron.exchange;

import io.github.sparkperceptron.kernel.TouchedSet;
import java.lang.ref.SoftReference;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The executor's side of shipping the weights: one current copy per training, brought up to the
 * round's version from the broadcasts it has not applied yet, and a pool of working copies for
 * the tasks, resynchronised by the coordinates that changed instead of copied whole.
 *
 * <p>Every copy a task receives equals the driver's weights of the task's round exactly (values
 * are set, never added), however the executor got there (cached copy plus changes, or snapshot
 * plus changes), which is what keeps retries and recomputations bit-identical. A task that fails
 * never returns its working copy, so a half-finished round cannot leak into a later one.
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
    final ArrayDeque<Working> idle = new ArrayDeque<>();

    Entry(int length) {
      this.length = length;
    }
  }

  /**
   * A task's working state for one round: its private copy of the round's weights, a zero
   * averaging accumulator (when averaging) and an empty set of touched coordinates. Hand it back
   * with {@link #release} once the round's change has been read from it.
   */
  public static final class Working {
    private final Entry entry;
    private final double[] weights;
    private final double[] average;
    private final TouchedSet touched;
    private long version;
    private int[] ownChanges = new int[0];

    private Working(Entry entry, boolean averaging) {
      this.entry = entry;
      this.weights = entry.base.clone();
      this.average = averaging ? new double[entry.length] : null;
      this.touched = new TouchedSet(entry.length);
      this.version = entry.version;
    }

    /** The round's weights, to train on (private to this task). */
    public double[] weights() {
      return weights;
    }

    /** The round's weights as shipped (shared: read only). */
    public double[] base() {
      return entry.base;
    }

    /** A zero accumulator for the round's averaging updates, or {@code null}. */
    public double[] average() {
      return average;
    }

    /** The coordinates the round's updates wrote (to be marked by the kernel). */
    public TouchedSet touched() {
      return touched;
    }
  }

  /** The working state of one task of the round {@code ref} describes. */
  public static Working checkout(WeightsRef ref, boolean averaging) {
    Entry entry = entry(ref);
    synchronized (entry) {
      bringUpToDate(entry, ref);
      Working w = entry.idle.poll();
      while (w != null && (w.average == null) == averaging) {
        w = entry.idle.poll();
      }
      if (w == null) {
        return new Working(entry, averaging);
      }
      resynchronise(w, entry);
      return w;
    }
  }

  /**
   * The weights of the version {@code ref} describes, as this executor holds them: shared with
   * every task of that version, so read only, and only until the next version arrives (for the
   * weights that are not trained on, e.g. a stream's averaging accumulator read to score rows).
   */
  public static double[] shared(WeightsRef ref) {
    Entry entry = entry(ref);
    synchronized (entry) {
      bringUpToDate(entry, ref);
      return entry.base;
    }
  }

  /**
   * Hands a working state back after its round: {@code written} are the coordinates of the
   * weights and accumulator the round wrote (what {@link Working#touched()} held); the
   * accumulator is zeroed there and the weights are resynchronised there before the next use.
   */
  public static void release(Working w, int[] written) {
    if (w.average != null) {
      for (int j : written) {
        w.average[j] = 0.0;
      }
    }
    w.ownChanges = written;
    synchronized (w.entry) {
      w.entry.idle.push(w);
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
    for (org.apache.spark.broadcast.Broadcast<WeightVersion> b : ref.changes) {
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

  private static void resynchronise(Working w, Entry entry) {
    double[] base = entry.base;
    if (w.version < entry.snapshotVersion) {
      System.arraycopy(base, 0, w.weights, 0, base.length);
    } else {
      for (int j : w.ownChanges) {
        w.weights[j] = base[j];
      }
      for (WeightVersion change : entry.applied) {
        if (change.version > w.version) {
          for (int j : change.index) {
            w.weights[j] = base[j];
          }
        }
      }
    }
    w.ownChanges = new int[0];
    w.version = entry.version;
  }

  /** Drops a training's copies from this JVM (the driver's, in local mode, when it ends). */
  static void forget(String training) {
    synchronized (ENTRIES) {
      ENTRIES.remove(training);
    }
  }
}
