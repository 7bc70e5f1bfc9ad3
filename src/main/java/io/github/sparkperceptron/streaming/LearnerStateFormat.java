package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.internal.engine.MomentumState;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.store.StateFile.Unreadable;
import io.github.sparkperceptron.internal.store.StateFile;
import io.github.sparkperceptron.internal.store.StateReader;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * The two kinds of file a stream's learner state is made of, codecs on {@link StateFile}, the
 * container of every state file (no class instantiation from the file, unlike Java
 * serialization): a whole copy of the state (a <i>snapshot</i>) and the <i>change</i> one batch
 * made to the state before it. {@link LearnerStateStore} keeps them in a directory.
 *
 * <p>Snapshot: kind {@code LRNR}, format {@value #FORMAT_VERSION}, the configuration (key=value
 * lines) as the header, and
 * <pre>
 *  1 PROGRESS  UTF Spark query id ("" when unknown), long last batch id, long batches,
 *              long rows, long prequential correct, long updates, long drifts
 *  2 MODEL     int numClasses, int numFeatures
 *  3 STATE     the learner state: double[] w (K'·(d+1)), boolean hasU, [double[] u], double c
 *  4 MOMENTUM  (mixing=momentum) double[] Δ, double mass M, double Δ's mass, long restarts,
 *              double ρ, double ‖w_0‖²
 *  5 DRIFT     (with a detector) double[] its state (DriftDetector.encode)
 * </pre>
 * Change: kind {@code LRCH}, format {@value #CHANGE_VERSION}, the configuration as the header, and
 * <pre>
 *  1 PROGRESS  as the snapshot's, after the batch
 *  2 BASE      long the last batch id of the state the change applies to
 *  3 CHANGE    double c, int[] the coordinates written (increasing), double[] w there,
 *              boolean hasU, [double[] u there]
 *  4 MOMENTUM  (when the state after the batch has one) double[] Δ there, then the scalars as the
 *              snapshot's; absent: the state has none (one worker, or another mixing)
 *  5 DRIFT     (with a detector) double[] its whole state (it is small: O(log n) for ADWIN)
 * </pre>
 * Values are set, not added, so applying a change gives the state after the batch bit for bit.
 *
 * <p>Earlier formats still load as snapshots: format 2 (the container, sections 1 to 3, no
 * drifts count), written before the state was kept as snapshot and changes, and format 1 (magic
 * {@code SPLSTATE}), written before the container:
 * <pre>
 *   bytes  "SPLSTATE"                 magic
 *   int    1                          format version
 *   int n, n bytes (UTF-8)            configuration (key=value lines)
 *   int n, n bytes (UTF-8)            Spark query id, "" when unknown
 *   long   last batch id, batches, rows, prequential correct, updates
 *   int    numClasses, numFeatures
 *   double clock c
 *   int L, L doubles                  weights w, L = K'·(d+1)
 *   byte 0|1 [, L doubles]            averaging accumulator u, when averaging
 *   long   CRC-32 of every byte above
 * </pre>
 * Why format 3 and not new sections in format 2: a state is now a snapshot and the changes after
 * it, which a reader of format 2 would not apply; the new version makes it refuse the directory
 * instead of resuming from a stale snapshot. All numbers big-endian; doubles as their IEEE 754
 * bits, so a state reads back bit for bit.
 */
final class LearnerStateFormat {
  /** The snapshot format written; 1 was the layout before the container, 2 the first in it. */
  static final int FORMAT_VERSION = 3;
  static final int CHANGE_VERSION = 1;
  private static final int PROGRESS = 1;
  private static final int MODEL = 2;
  private static final int BASE = 2;
  private static final int STATE = 3;
  private static final int CHANGE = 3;
  private static final int MOMENTUM = 4;
  private static final int DRIFT = 5;
  private static final StateFile.Kind KIND = new StateFile.Kind("LRNR", "learner state",
      "configuration", "", "PROGRESS", "MODEL", "STATE", "MOMENTUM", "DRIFT");
  private static final StateFile.Kind CHANGE_KIND = new StateFile.Kind("LRCH",
      "learner state change", "configuration", "", "PROGRESS", "BASE", "CHANGE", "MOMENTUM",
      "DRIFT");
  private static final byte[] LEGACY_MAGIC = "SPLSTATE".getBytes(StandardCharsets.US_ASCII);
  private static final int LEGACY_VERSION = 1;

  private LearnerStateFormat() {
  }

  // ------------------------------------------------------------------------------- snapshots

  /** Writes {@code s} whole, in the current format. */
  static void writeSnapshot(LearnerState s, OutputStream raw) throws IOException {
    StateFile.Out out = new StateFile.Out(raw, KIND, FORMAT_VERSION, s.configuration);
    out.section(PROGRESS, o -> writeProgress(s, o));
    out.section(MODEL, o -> {
      o.writeInt(s.progress.numClasses());
      o.writeInt(s.progress.numFeatures());
    });
    out.section(STATE, o -> o.writeLinearState(s.state));
    if (s.momentum != null) {
      out.section(MOMENTUM, o -> s.momentum.write(o));
    }
    writeDrift(s, out);
    out.finish();
  }

  /** A snapshot as read: the state, and the format it was written in. */
  record Snapshot(LearnerState state, int format) {
  }

  /**
   * Reads a snapshot of {@code length} bytes, in any format.
   *
   * @throws IllegalArgumentException naming what is wrong: not a state file, a newer format, a
   *     damaged (checksum) or truncated file, or inconsistent sizes
   * @throws IOException if the file system fails (not the file's content)
   */
  static Snapshot readSnapshot(InputStream raw, long length) throws IOException {
    BufferedInputStream in = new BufferedInputStream(raw);
    in.mark(LEGACY_MAGIC.length);
    byte[] magic = in.readNBytes(LEGACY_MAGIC.length);
    in.reset();
    if (Arrays.equals(magic, LEGACY_MAGIC)) {
      return new Snapshot(decodeFormatOne(in.readAllBytes()), LEGACY_VERSION);
    }
    try {
      return StateFile.read(in, length, KIND, LearnerStateFormat::decodeSnapshot);
    } catch (Unreadable e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  private static Snapshot decodeSnapshot(StateReader in) throws IOException, Unreadable {
    int version = in.requireVersion(2, FORMAT_VERSION);
    String configuration = in.header();
    if (configuration == null) {
      throw new Unreadable("it is damaged: its configuration is not text", false);
    }
    Progress progress = null;
    int numClasses = 0;
    int numFeatures = -1;
    LinearState state = null;
    MomentumState momentum = null;
    double[] drift = null;
    for (int tag = in.nextSection(); tag != StateFile.END; tag = in.nextSection()) {
      if (tag == PROGRESS) {
        progress = readProgress(in, version >= 3);
      } else if (tag == MODEL) {
        numClasses = in.readInt();
        numFeatures = in.readInt();
      } else if (tag == STATE) {
        state = in.readLinearState();
      } else if (tag == MOMENTUM && version >= 3) {
        momentum = MomentumState.read(in);
      } else if (tag == DRIFT && version >= 3) {
        drift = in.readDoubles();
      } else {
        throw new Unreadable("it is damaged: format " + version + " has no section "
            + in.sectionName(tag), false);
      }
      in.leave();
    }
    in.finish();
    requireSections(in, PROGRESS, MODEL, STATE);
    String problem = sizes(numClasses, numFeatures, state.weights().length);
    if (problem == null && momentum != null && momentum.velocity().length != state.weights().length) {
      problem = "its momentum has " + momentum.velocity().length + " values, its weights "
          + state.weights().length;
    }
    if (problem != null) {
      throw new Unreadable("it is damaged: " + problem, false);
    }
    return new Snapshot(new LearnerState(configuration, progress.queryId,
        progress.at(numClasses, numFeatures),
        state, momentum, drift), version);
  }

  // --------------------------------------------------------------------------------- changes

  /**
   * Writes the change that took the state with last batch id {@code base} to {@code s}: the
   * values of w, u and Δ at {@code written} (increasing), the scalars and counts.
   */
  static void writeChange(LearnerState s, long base, int[] written, OutputStream raw)
      throws IOException {
    StateFile.Out out = new StateFile.Out(raw, CHANGE_KIND, CHANGE_VERSION, s.configuration);
    out.section(PROGRESS, o -> writeProgress(s, o));
    out.section(BASE, o -> o.writeLong(base));
    out.section(CHANGE, o -> {
      o.writeDouble(s.state.clock());
      o.writeInts(written);
      o.writeDoublesAt(s.state.weights(), written);
      double[] u = s.state.averageAccumulator();
      o.writeBoolean(u != null);
      if (u != null) {
        o.writeDoublesAt(u, written);
      }
    });
    if (s.momentum != null) {
      out.section(MOMENTUM, o -> s.momentum.writeAt(o, written));
    }
    writeDrift(s, out);
    out.finish();
  }

  /** A change as applied: the state after it, and how many coordinates it wrote. */
  record Applied(LearnerState state, int coordinates) {
  }

  /**
   * The state after the change of {@code length} bytes read from {@code raw}, applied to
   * {@code before} (whose arrays it changes in place).
   *
   * @throws IllegalArgumentException if the file is not a sound change of this learner, or
   *     applies to another state than {@code before}
   */
  static Applied applyChange(LearnerState before, InputStream raw, long length)
      throws IOException {
    try {
      return StateFile.read(new BufferedInputStream(raw), length, CHANGE_KIND,
          in -> decodeChange(before, in));
    } catch (Unreadable e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  private static Applied decodeChange(LearnerState before, StateReader in)
      throws IOException, Unreadable {
    in.requireVersion(CHANGE_VERSION);
    String configuration = in.header();
    if (configuration == null) {
      throw new Unreadable("it is damaged: its configuration is not text", false);
    }
    Progress progress = null;
    long base = Long.MIN_VALUE;
    double clock = Double.NaN;
    int[] index = null;
    double[][] values = null;
    MomentumState momentum = null;
    double[] drift = null;
    for (int tag = in.nextSection(); tag != StateFile.END; tag = in.nextSection()) {
      if (tag == PROGRESS) {
        progress = readProgress(in, true);
      } else if (tag == BASE) {
        base = in.readLong();
      } else if (tag == CHANGE) {
        clock = in.readDouble();
        index = in.readInts();
        double[] w = in.readDoubles();
        values = new double[][] {w, in.readBoolean() ? in.readDoubles() : null};
      } else if (tag == MOMENTUM) {
        momentum = MomentumState.read(in);
      } else {
        drift = in.readDoubles();
      }
      in.leave();
    }
    in.finish();
    requireSections(in, PROGRESS, BASE, CHANGE);
    if (!configuration.equals(before.configuration)) {
      throw new Unreadable("it belongs to another training than the state before it", true);
    }
    if (base != before.progress.lastBatchId()) {
      throw new Unreadable("it changes the state of batch " + base + ", but the state before it"
          + " is of batch " + before.progress.lastBatchId() + " (a change record is missing)",
          false);
    }
    String problem = changeProblem(before, index, values, momentum);
    if (problem != null) {
      throw new Unreadable("it is damaged: " + problem, false);
    }
    double[] w = before.state.weights();
    double[] u = before.state.averageAccumulator();
    double[] v = velocityAfter(before, momentum);
    for (int k = 0; k < index.length; k++) {
      int j = index[k];
      w[j] = values[0][k];
      if (u != null) {
        u[j] = values[1][k];
      }
      if (v != null) {
        v[j] = momentum.velocity()[k];
      }
    }
    before.state.setClock(clock);
    MomentumState after = momentum == null ? null : momentum.withVelocity(v);
    return new Applied(new LearnerState(configuration, progress.queryId,
        progress.at(before.progress.numClasses(), before.progress.numFeatures()), before.state,
        after, drift), index.length);
  }

  /** Δ after the change: the carried one, a new zero one, or null when the state has none. */
  private static double[] velocityAfter(LearnerState before, MomentumState momentum) {
    if (momentum == null) {
      return null;
    }
    return before.momentum != null ? before.momentum.velocity()
        : new double[before.state.weights().length];
  }

  private static String changeProblem(LearnerState before, int[] index, double[][] values,
      MomentumState momentum) {
    int length = before.state.weights().length;
    if (values[0].length != index.length || (values[1] == null)
        != (before.state.averageAccumulator() == null)
        || (values[1] != null && values[1].length != index.length)
        || (momentum != null && momentum.velocity().length != index.length)) {
      return "its values do not match its " + index.length + " coordinates";
    }
    for (int k = 0; k < index.length; k++) {
      if (index[k] < 0 || index[k] >= length || (k > 0 && index[k] <= index[k - 1])) {
        return "coordinate " + index[k] + " is out of order or outside the state's " + length;
      }
    }
    return null;
  }

  // ------------------------------------------------------------------------------- sections

  private static void writeProgress(LearnerState s, StateFile.Out o) throws IOException {
    o.writeUTF(s.queryId);
    StreamingProgress.Tally tally = s.progress.tally();
    o.writeLong(s.progress.lastBatchId());
    o.writeLong(tally.batches());
    o.writeLong(tally.rows());
    o.writeLong(tally.prequentialCorrect());
    o.writeLong(tally.updates());
    o.writeLong(tally.drifts());
  }

  private static void writeDrift(LearnerState s, StateFile.Out out) throws IOException {
    if (s.drift != null) {
      out.section(DRIFT, o -> o.writeDoubles(s.drift, s.drift.length));
    }
  }

  private static void requireSections(StateReader in, int... tags) throws Unreadable {
    for (int tag : tags) {
      if (!in.seen(tag)) {
        throw new Unreadable("it is damaged: section " + in.sectionName(tag) + " is missing",
            false);
      }
    }
  }

  /** The PROGRESS section's fields: the query, the last batch and the tally. */
  private record Progress(String queryId, long lastBatchId, StreamingProgress.Tally tally) {
    StreamingProgress at(int numClasses, int numFeatures) {
      return new StreamingProgress(lastBatchId, tally, numClasses, numFeatures);
    }
  }

  /** Format 2 had no drift count: its states read with none. */
  private static Progress readProgress(StateReader in, boolean withDrifts)
      throws IOException, Unreadable {
    String queryId = in.readUTF();
    long lastBatchId = in.readLong();
    StreamingProgress.Tally tally = new StreamingProgress.Tally(in.readLong(), in.readLong(),
        in.readLong(), in.readLong(), withDrifts ? in.readLong() : 0);
    return new Progress(queryId, lastBatchId, tally);
  }

  /** Why K classes, d features and L weights do not make a model, or null when they do. */
  private static String sizes(int numClasses, int numFeatures, int weights) {
    long expected = (numClasses == 2 ? 1L : numClasses) * (numFeatures + 1L);
    return numClasses < 2 || numFeatures < 0 || weights != expected
        ? "its sizes are inconsistent (" + numClasses + " classes, " + numFeatures
            + " features, " + weights + " weights)"
        : null;
  }

  // -------------------------------------------------------------------------------- format 1

  /** Reads a state in format 1 (magic {@code SPLSTATE}), written before the container. */
  static LearnerState decodeFormatOne(byte[] bytes) {
    if (bytes.length < LEGACY_MAGIC.length + 12) {
      throw new IllegalArgumentException("it is truncated (" + bytes.length + " bytes)");
    }
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, bytes.length - 8);
    long stored = 0;
    for (int i = bytes.length - 8; i < bytes.length; i++) {
      stored = (stored << 8) | (bytes[i] & 0xFF);
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes,
        LEGACY_MAGIC.length, bytes.length - 8 - LEGACY_MAGIC.length))) {
      int version = in.readInt();
      if (version != LEGACY_VERSION) {
        throw new IllegalArgumentException("its format version is " + version + ", and this"
            + " version of spark-perceptron reads version " + LEGACY_VERSION + " in this layout");
      }
      if (stored != crc.getValue()) {
        throw new IllegalArgumentException("its checksum does not match (the file is damaged or"
            + " truncated)");
      }
      String configuration = readString(in, bytes.length);
      String queryId = readString(in, bytes.length);
      long lastBatchId = in.readLong();
      long batches = in.readLong();
      long rows = in.readLong();
      long correct = in.readLong();
      long updates = in.readLong();
      int numClasses = in.readInt();
      int numFeatures = in.readInt();
      double clock = in.readDouble();
      double[] w = readDoubles(in, bytes.length);
      double[] u = in.readBoolean() ? readDoubles(in, w.length, bytes.length) : null;
      String problem = sizes(numClasses, numFeatures, w.length);
      if (problem != null || in.available() != 0) {
        throw new IllegalArgumentException(problem != null ? problem
            : "its sizes are inconsistent (" + in.available() + " bytes follow the state)");
      }
      return new LearnerState(configuration, queryId, new StreamingProgress(lastBatchId,
          new StreamingProgress.Tally(batches, rows, correct, updates, 0), numClasses,
          numFeatures), new LinearState(w, u, clock));
    } catch (EOFException e) {
      throw new IllegalArgumentException("it is truncated", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String readString(DataInputStream in, int fileLength) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > fileLength) {
      throw new IllegalArgumentException("it holds a string of impossible length " + n);
    }
    byte[] b = new byte[n];
    in.readFully(b);
    return new String(b, StandardCharsets.UTF_8);
  }

  private static double[] readDoubles(DataInputStream in, int fileLength) throws IOException {
    return readDoubles(in, in.readInt(), fileLength);
  }

  /** Checks the length against the file before allocating, so a bad length cannot exhaust memory. */
  private static double[] readDoubles(DataInputStream in, int n, int fileLength)
      throws IOException {
    if (n < 0 || n > fileLength / 8) {
      throw new IllegalArgumentException("it holds an array of impossible length " + n);
    }
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = in.readDouble();
    }
    return v;
  }
}
