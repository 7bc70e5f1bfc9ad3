package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.kernel.LinearState;
import io.github.sparkperceptron.store.AtomicFiles;
import io.github.sparkperceptron.store.StateDirectory;
import io.github.sparkperceptron.store.StateFile;
import io.github.sparkperceptron.store.StateFile.Unreadable;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stream learner's state files in one directory on any Hadoop file system with atomic rename
 * (local, HDFS): {@code state-<batch id>.bin} after every applied batch, and {@code published}
 * (which batch the published model holds).
 *
 * <p>Every file is written under a temporary name and renamed when complete
 * ({@link AtomicFiles}), and only complete names are read, so a driver killed while writing
 * leaves the previous state in place; the older state is deleted once the newer one is in place.
 * Writing the state after a batch and before Spark commits that batch is what makes the learner
 * exactly-once: a batch Spark replays after a crash has an id at or below the saved one and is
 * skipped.
 *
 * <p>The state is a codec on {@link StateFile}, the container of every state file (no class
 * instantiation from the file, unlike Java serialization): kind {@code LRNR}, version
 * {@value #FORMAT_VERSION}, the configuration (key=value lines) as the header, and
 * <pre>
 *  1 PROGRESS  UTF Spark query id ("" when unknown), long last batch id, long batches,
 *              long rows, long prequential correct, long updates
 *  2 MODEL     int numClasses, int numFeatures
 *  3 STATE     the learner state: double[] w (K'·(d+1)), boolean hasU, [double[] u], double c
 * </pre>
 * Format 1, written before the container, is still read:
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
 * All numbers big-endian; doubles as their IEEE 754 bits, so a state reads back bit for bit.
 */
final class LearnerStateStore {
  private static final Logger LOG = LoggerFactory.getLogger(LearnerStateStore.class);
  /** The format written; 1 was the layout before the container. */
  static final int FORMAT_VERSION = 2;
  private static final int PROGRESS = 1;
  private static final int MODEL = 2;
  private static final int STATE = 3;
  private static final StateFile.Kind KIND = new StateFile.Kind("LRNR", "learner state",
      "configuration", "", "PROGRESS", "MODEL", "STATE");
  private static final byte[] LEGACY_MAGIC = "SPLSTATE".getBytes(StandardCharsets.US_ASCII);
  private static final int LEGACY_VERSION = 1;
  private static final String PUBLISHED = "published";

  private final StateDirectory states;

  LearnerStateStore(Configuration conf, String dir) {
    this.states = new StateDirectory(conf, new Path(dir), "state-", 19, ".bin");
  }

  String location() {
    return states.dir().toString();
  }

  /**
   * The latest saved state, or {@code null} when there is none.
   *
   * @throws IllegalArgumentException if the file is damaged or not a learner state
   */
  LearnerState latest() {
    try {
      Path last = states.latest();
      if (last == null) {
        return null;
      }
      FileSystem fs = states.fs();
      long length = fs.getFileStatus(last).getLen();
      try (InputStream in = fs.open(last)) {
        return decode(in, length);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("The learner state " + last + " cannot be used: "
            + e.getMessage(), e);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the learner state in '" + location() + "'", e);
    }
  }

  /** Saves {@code state} atomically and removes the older states. */
  void save(LearnerState state) {
    Path target = states.file(state.lastBatchId);
    try {
      states.write(target, out -> write(state, out));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the learner state to '" + location() + "'",
          e);
    }
    try {
      states.deleteOlderThan(target);
    } catch (IOException e) {
      LOG.warn("Could not remove older learner states in {}: {}", location(), e.getMessage());
    }
  }

  /** The batch id whose model was last published to {@code modelPath}, or −1. */
  long publishedBatch(String modelPath) {
    try {
      Path p = new Path(states.dir(), PUBLISHED);
      FileSystem fs = states.fs();
      if (!fs.exists(p)) {
        return -1;
      }
      String text;
      try (InputStream in = fs.open(p)) {
        text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      int tab = text.indexOf('\t');
      if (tab < 0 || !text.substring(tab + 1).strip().equals(modelPath)) {
        return -1;
      }
      return Long.parseLong(text.substring(0, tab));
    } catch (IOException | NumberFormatException e) {
      // Only an optimisation rests on it: without it the model is published once more.
      return -1;
    }
  }

  void markPublished(long batchId, String modelPath) {
    byte[] text = (batchId + "\t" + modelPath + "\n").getBytes(StandardCharsets.UTF_8);
    try {
      states.write(new Path(states.dir(), PUBLISHED), out -> out.write(text));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the learner state to '" + location() + "'",
          e);
    }
  }

  /** Writes {@code s} in the current format. */
  static void write(LearnerState s, OutputStream raw) throws IOException {
    StateFile.Out out = new StateFile.Out(raw, KIND, FORMAT_VERSION, s.configuration);
    out.section(PROGRESS, o -> {
      o.writeUTF(s.queryId);
      o.writeLong(s.lastBatchId);
      o.writeLong(s.batches);
      o.writeLong(s.rows);
      o.writeLong(s.prequentialCorrect);
      o.writeLong(s.updates);
    });
    out.section(MODEL, o -> {
      o.writeInt(s.numClasses);
      o.writeInt(s.numFeatures);
    });
    out.section(STATE, o -> o.writeLinearState(s.state));
    out.finish();
  }

  /** {@link #write} into bytes. */
  static byte[] encode(LearnerState s) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      write(s, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }

  /**
   * Reads a state of {@code length} bytes, in the current format or in format 1.
   *
   * @throws IllegalArgumentException naming what is wrong: not a state file, a newer format, a
   *     damaged (checksum) or truncated file, or inconsistent sizes
   * @throws IOException if the file system fails (not the file's content)
   */
  static LearnerState decode(InputStream raw, long length) throws IOException {
    BufferedInputStream in = new BufferedInputStream(raw);
    in.mark(LEGACY_MAGIC.length);
    byte[] magic = in.readNBytes(LEGACY_MAGIC.length);
    in.reset();
    if (Arrays.equals(magic, LEGACY_MAGIC)) {
      return decodeFormatOne(in.readAllBytes());
    }
    try {
      return StateFile.read(in, length, KIND, LearnerStateStore::decode);
    } catch (Unreadable e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** {@link #decode(InputStream, long)} of bytes. */
  static LearnerState decode(byte[] bytes) {
    try {
      return decode(new ByteArrayInputStream(bytes), bytes.length);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
  }

  private static LearnerState decode(StateFile.In in) throws IOException, Unreadable {
    in.requireVersion(FORMAT_VERSION);
    String configuration = in.header();
    if (configuration == null) {
      throw new Unreadable("it is damaged: its configuration is not text", false);
    }
    String queryId = null;
    long[] counts = null;
    int[] shape = null;
    LinearState state = null;
    for (int tag = in.nextSection(); tag != StateFile.END; tag = in.nextSection()) {
      if (tag == PROGRESS) {
        queryId = in.readUTF();
        counts = new long[] {in.readLong(), in.readLong(), in.readLong(), in.readLong(),
            in.readLong()};
      } else if (tag == MODEL) {
        shape = new int[] {in.readInt(), in.readInt()};
      } else {
        state = in.readLinearState();
      }
      in.leave();
    }
    in.finish();
    for (int tag : new int[] {PROGRESS, MODEL, STATE}) {
      if (!in.seen(tag)) {
        throw new Unreadable("it is damaged: section " + in.sectionName(tag) + " is missing",
            false);
      }
    }
    double[] u = state.averageAccumulator();
    String problem = sizes(shape[0], shape[1], state.weights().length);
    if (problem == null && u != null && u.length != state.weights().length) {
      problem = "its averaging accumulator has " + u.length + " values, its weights "
          + state.weights().length;
    }
    if (problem != null) {
      throw new Unreadable("it is damaged: " + problem, false);
    }
    return new LearnerState(configuration, queryId, new StreamingProgress(counts[0], counts[1],
        counts[2], counts[3], counts[4], shape[0], shape[1]), state);
  }

  /** Why K classes, d features and L weights do not make a model, or null when they do. */
  private static String sizes(int numClasses, int numFeatures, int weights) {
    long expected = (numClasses == 2 ? 1L : numClasses) * (numFeatures + 1L);
    return numClasses < 2 || numFeatures < 0 || weights != expected
        ? "its sizes are inconsistent (" + numClasses + " classes, " + numFeatures
            + " features, " + weights + " weights)"
        : null;
  }

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
      return new LearnerState(configuration, queryId, new StreamingProgress(lastBatchId, batches,
          rows, correct, updates, numClasses, numFeatures), new LinearState(w, u, clock));
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
