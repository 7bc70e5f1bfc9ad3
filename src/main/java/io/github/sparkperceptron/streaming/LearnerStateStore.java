package io.github.sparkperceptron.streaming;

import io.github.sparkperceptron.kernel.LinearState;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stream learner's state files in one directory on any Hadoop file system with atomic rename
 * (local, HDFS): {@code state-<batch id>.bin} after every applied batch, and {@code published}
 * (which batch the published model holds).
 *
 * <p>Every file is written under a temporary name and renamed when complete, and only complete
 * names are read, so a driver killed while writing leaves the previous state in place; the older
 * state is deleted once the newer one is in place. Writing the state after a batch and before
 * Spark commits that batch is what makes the learner exactly-once: a batch Spark replays after a
 * crash has an id at or below the saved one and is skipped.
 *
 * <p>The format is plain and versioned, with no class instantiation from the file (unlike Java
 * serialization, which would run whatever classes a tampered file names):
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
 * All numbers big-endian ({@link DataOutputStream}); doubles as their IEEE 754 bits, so a state
 * reads back bit for bit.
 */
final class LearnerStateStore {
  private static final Logger LOG = LoggerFactory.getLogger(LearnerStateStore.class);
  private static final byte[] MAGIC = "SPLSTATE".getBytes(StandardCharsets.US_ASCII);
  static final int FORMAT_VERSION = 1;
  private static final String PREFIX = "state-";
  private static final String SUFFIX = ".bin";
  private static final String PUBLISHED = "published";

  private final Configuration conf;
  private final Path dir;

  LearnerStateStore(Configuration conf, String dir) {
    this.conf = conf;
    this.dir = new Path(dir);
  }

  String location() {
    return dir.toString();
  }

  private FileSystem fs() throws IOException {
    return dir.getFileSystem(conf);
  }

  /** The complete state files, oldest first (names sort by batch id: fixed-width numbers). */
  private List<Path> stateFiles() throws IOException {
    List<Path> out = new ArrayList<>();
    FileSystem fs = fs();
    if (!fs.exists(dir)) {
      return out;
    }
    for (FileStatus f : fs.listStatus(dir)) {
      String name = f.getPath().getName();
      if (name.startsWith(PREFIX) && name.endsWith(SUFFIX)) {
        out.add(f.getPath());
      }
    }
    out.sort((a, b) -> a.getName().compareTo(b.getName()));
    return out;
  }

  /**
   * The latest saved state, or {@code null} when there is none.
   *
   * @throws IllegalArgumentException if the file is damaged or not a learner state
   */
  LearnerState latest() {
    try {
      List<Path> files = stateFiles();
      if (files.isEmpty()) {
        return null;
      }
      Path last = files.get(files.size() - 1);
      byte[] bytes;
      try (InputStream in = fs().open(last)) {
        bytes = in.readAllBytes();
      }
      try {
        return decode(bytes);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("The learner state " + last + " cannot be used: "
            + e.getMessage(), e);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the learner state in '" + dir + "'", e);
    }
  }

  /** Saves {@code state} atomically and removes the older states. */
  void save(LearnerState state) {
    Path target = new Path(dir, String.format(Locale.ROOT, "%s%019d%s", PREFIX,
        state.lastBatchId, SUFFIX));
    writeAtomically(target, encode(state));
    try {
      for (Path older : stateFiles()) {
        if (older.getName().compareTo(target.getName()) < 0) {
          fs().delete(older, false);
        }
      }
    } catch (IOException e) {
      LOG.warn("Could not remove older learner states in {}: {}", dir, e.getMessage());
    }
  }

  /** The batch id whose model was last published to {@code modelPath}, or −1. */
  long publishedBatch(String modelPath) {
    try {
      Path p = new Path(dir, PUBLISHED);
      FileSystem fs = fs();
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
    writeAtomically(new Path(dir, PUBLISHED),
        (batchId + "\t" + modelPath + "\n").getBytes(StandardCharsets.UTF_8));
  }

  private void writeAtomically(Path target, byte[] bytes) {
    Path temporary = new Path(dir, "." + target.getName() + ".tmp-" + UUID.randomUUID());
    try {
      FileSystem fs = fs();
      fs.mkdirs(dir);
      try (OutputStream out = fs.create(temporary, true)) {
        out.write(bytes);
      }
      if (fs.exists(target)) {
        fs.delete(target, false);
      }
      if (!fs.rename(temporary, target)) {
        throw new IOException("rename of " + temporary + " to " + target + " failed");
      }
    } catch (IOException e) {
      try {
        fs().delete(temporary, false);
      } catch (IOException ignored) {
        // a temporary name is never read
      }
      throw new UncheckedIOException("Cannot write the learner state to '" + dir + "'", e);
    }
  }

  static byte[] encode(LearnerState s) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.write(MAGIC);
      out.writeInt(FORMAT_VERSION);
      writeString(out, s.configuration);
      writeString(out, s.queryId);
      out.writeLong(s.lastBatchId);
      out.writeLong(s.batches);
      out.writeLong(s.rows);
      out.writeLong(s.prequentialCorrect);
      out.writeLong(s.updates);
      out.writeInt(s.numClasses);
      out.writeInt(s.numFeatures);
      out.writeDouble(s.state.clock());
      writeDoubles(out, s.state.weights());
      double[] u = s.state.averageAccumulator();
      out.writeBoolean(u != null);
      if (u != null) {
        for (double v : u) {
          out.writeDouble(v);
        }
      }
      out.flush();
      CRC32 crc = new CRC32();
      crc.update(bytes.toByteArray());
      out.writeLong(crc.getValue());
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
  }

  /**
   * Reads a state written by {@link #encode}.
   *
   * @throws IllegalArgumentException naming what is wrong: not a state file, a newer format, a
   *     damaged (checksum) or truncated file, or inconsistent sizes
   */
  static LearnerState decode(byte[] bytes) {
    if (bytes.length < MAGIC.length + 12) {
      throw new IllegalArgumentException("it is truncated (" + bytes.length + " bytes)");
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (bytes[i] != MAGIC[i]) {
        throw new IllegalArgumentException("it is not a spark-perceptron learner state");
      }
    }
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, bytes.length - 8);
    long stored = 0;
    for (int i = bytes.length - 8; i < bytes.length; i++) {
      stored = (stored << 8) | (bytes[i] & 0xFF);
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, MAGIC.length,
        bytes.length - 8 - MAGIC.length))) {
      int version = in.readInt();
      if (version != FORMAT_VERSION) {
        throw new IllegalArgumentException("its format version is " + version + ", and this"
            + " version of spark-perceptron reads version " + FORMAT_VERSION);
      }
      if (stored != crc.getValue()) {
        throw new IllegalArgumentException("its checksum does not match (the file is damaged or truncated)");
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
      long expected = (numClasses == 2 ? 1L : numClasses) * (numFeatures + 1L);
      if (numClasses < 2 || numFeatures < 0 || w.length != expected || in.available() != 0) {
        throw new IllegalArgumentException("its sizes are inconsistent (" + numClasses
            + " classes, " + numFeatures + " features, " + w.length + " weights)");
      }
      return new LearnerState(configuration, queryId, lastBatchId, batches, rows, correct,
          updates, numClasses, numFeatures, new LinearState(w, u, clock));
    } catch (EOFException e) {
      throw new IllegalArgumentException("it is truncated", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void writeString(DataOutputStream out, String s) throws IOException {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
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

  private static void writeDoubles(DataOutputStream out, double[] values) throws IOException {
    out.writeInt(values.length);
    for (double v : values) {
      out.writeDouble(v);
    }
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
