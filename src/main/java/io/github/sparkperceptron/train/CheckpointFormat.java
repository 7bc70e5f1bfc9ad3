package io.github.sparkperceptron.train;

import io.github.sparkperceptron.kernel.EpochStats;
import io.github.sparkperceptron.kernel.LearnerConfig;
import io.github.sparkperceptron.kernel.LinearState;
import io.github.sparkperceptron.kernel.VoteTrace;
import io.github.sparkperceptron.kernel.VotedPerceptron;
import io.github.sparkperceptron.mixing.BlockMomentum;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * The checkpoint file format: a {@link TrainingProgress} written field by field as plain numbers
 * and arrays, so that reading a checkpoint never creates an object of a class the file names.
 * (Format 1 was a Java-serialized object stream, in which a planted file could name any class on
 * the driver's class path and have its deserialization code run.)
 *
 * <pre>
 * file        = magic version fingerprint section* END checksum
 * magic       = 8 bytes: 0x89 'S' 'P' 'C' 'K' 'P' 'T' '\n'
 * version     = int32, {@value #VERSION}
 * fingerprint = DataOutput.writeUTF of the training's fingerprint (from the Spark face's params and the data)
 * section     = tag int32 (&gt; 0), length int64, payload (length bytes); each tag at most once
 * END         = int32 0
 * checksum    = int32, CRC32C of every byte before it (in every version: the file's last 4 bytes)
 * </pre>
 *
 * Numbers are big-endian ({@link DataOutputStream}); an array is its int32 length, then its
 * elements; a state is {@code double[] w, boolean hasU, [double[] u], double clock}. Sections of
 * version 3:
 * <pre>
 *  1 PROGRESS  int epochsDone, int modelEpoch, double bestAccuracy, UTF stopReason,
 *              byte best (0: none, 1: the same as the state, 2: in section BEST)
 *  2 STATE     the mixed state after epochsDone epochs
 *  3 BEST      the best state on validation data (only when PROGRESS says 2)
 *  4 HISTORY   int n, then n × (long examples, double weightSeen, long mistakes, long updates,
 *              double perceptronLoss, double hingeLoss, long nonFiniteMargins, double stepSum,
 *              double weightChange, double seconds, long[] workerUpdates),
 *              then double[] validationAccuracy
 *  5 VOTE      (averaging=vote only) int numClasses, int numFeatures, boolean fitIntercept,
 *              int s, s × double[] startVector, int t, t × (int epoch, double share,
 *              int startVector, double startClock, double endClock, double mixWeight,
 *              int[] rowStart, int[] indices, double[] values, int[] raised, int[] lowered,
 *              double[] delta, double[] clockBefore)
 *  6 MOMENTUM  (mixing=momentum with several workers only) double beta, double rho,
 *              double initialSquaredNorm, double[] velocity, double mass, double velocityMass,
 *              long restarts: the whole {@link BlockMomentum}
 * </pre>
 *
 * Checkpoints are written at the end of an epoch, after its last mixing round, so no state of a
 * round in progress exists to be saved: the mixing rounds per epoch are a param (part of the
 * fingerprint), and each epoch's history sums its rounds. Version 3 added {@code stepSum} to
 * HISTORY (a changed encoding) and the MOMENTUM section.
 *
 * <p>How the format evolves (a checkpoint lives only as long as its training, so there is no
 * migration, only clear refusals):
 * <ul>
 *   <li>New state (a momentum vector, a streaming learner's counters) gets a new section tag.
 *       The version stays when a file without the section still resumes exactly under the new
 *       code (absent = the old behaviour); a reader refuses a tag below {@value #OPTIONAL_TAGS}
 *       that it does not know ("written by a newer spark-perceptron"), because resuming without
 *       that state would not give the same model.</li>
 *   <li>Tags from {@value #OPTIONAL_TAGS} up hold information a reader may skip without changing
 *       the model (diagnostics); unknown ones are skipped.</li>
 *   <li>Changing the encoding or meaning of an existing section increments {@link #VERSION}; a
 *       reader refuses every version but its own.</li>
 * </ul>
 *
 * <p>Reading trusts nothing in the file: every array length is checked against the bytes left in
 * its section before anything is allocated (a flipped length cannot make the driver allocate
 * more than the file's size), every section must be consumed exactly, the checksum must match,
 * and the contents must fit the training's shape (state length, classes, features, workers)
 * before they are used. The checksum detects damage, not forgery: whoever can write the
 * checkpoint directory can write a well-formed checkpoint with other weights, as they could
 * replace the training data.
 */
final class CheckpointFormat {
  static final int VERSION = 3;
  static final int OPTIONAL_TAGS = 1000;
  static final byte[] MAGIC = {(byte) 0x89, 'S', 'P', 'C', 'K', 'P', 'T', '\n'};

  static final int END = 0;
  static final int PROGRESS = 1;
  static final int STATE = 2;
  static final int BEST = 3;
  static final int HISTORY = 4;
  static final int VOTE = 5;
  static final int MOMENTUM = 6;

  private static final String[] SECTION_NAMES = {"END", "PROGRESS", "STATE", "BEST", "HISTORY",
      "VOTE", "MOMENTUM"};
  /** The first two bytes of every Java serialization stream (format 1 checkpoints). */
  private static final int JAVA_STREAM_MAGIC = 0xACED;
  private static final int CHUNK = 1 << 16;

  private CheckpointFormat() {
  }

  /** Why a file is not a readable checkpoint of this training: the reason, for a message. */
  static final class Unreadable extends Exception {
    private static final long serialVersionUID = 1L;
    /** True when the file is a sound checkpoint of a different training. */
    final boolean otherTraining;

    Unreadable(String reason, boolean otherTraining) {
      super(reason);
      this.otherTraining = otherTraining;
    }
  }

  /** What the resumed training must look like, to check a checkpoint's contents against. */
  static final class Shape {
    final LearnerConfig learner;
    final int numWorkers;
    final int maxIter;
    /** The block momentum β this training uses, or 0 when it mixes without momentum. */
    final double momentum;
    /** The momentum's norm-growth bound ρ (meaningful only with a momentum). */
    final double momentumBound;

    Shape(LearnerConfig learner, int numWorkers, int maxIter) {
      this(learner, numWorkers, maxIter, 0.0, 0.0);
    }

    Shape(LearnerConfig learner, int numWorkers, int maxIter, double momentum,
        double momentumBound) {
      this.learner = learner;
      this.numWorkers = numWorkers;
      this.maxIter = maxIter;
      this.momentum = momentum;
      this.momentumBound = momentumBound;
    }

    /** The shape of the training these settings run. */
    static Shape of(LearnerConfig learner, int numWorkers, MixingSettings settings) {
      boolean momentum = settings.hasMomentum();
      return new Shape(learner, numWorkers, settings.maxIter,
          momentum ? settings.momentum : 0.0, momentum ? settings.momentumBound : 0.0);
    }

    boolean voted() {
      return learner.averaging() == io.github.sparkperceptron.kernel.Averaging.VOTE;
    }
  }

  // ---------------------------------------------------------------------------------- writing

  /** Writes {@code progress} as a checkpoint of the training {@code fingerprint} identifies. */
  static void write(TrainingProgress progress, String fingerprint, OutputStream raw)
      throws IOException {
    Out out = new Out(raw);
    out.data.write(MAGIC);
    out.data.writeInt(VERSION);
    out.data.writeUTF(fingerprint);
    int bestKind = progress.best == null ? 0 : progress.best == progress.state ? 1 : 2;
    out.section(PROGRESS, o -> {
      o.writeInt(progress.epochsDone);
      o.writeInt(progress.modelEpoch);
      o.writeDouble(progress.bestAccuracy);
      o.writeUTF(progress.stopReason.name());
      o.writeByte(bestKind);
    });
    out.section(STATE, o -> writeState(o, progress.state));
    if (bestKind == 2) {
      out.section(BEST, o -> writeState(o, progress.best));
    }
    out.section(HISTORY, o -> writeHistory(o, progress));
    if (progress.vote != null) {
      out.section(VOTE, o -> writeVote(o, progress.vote));
    }
    if (progress.momentum != null) {
      out.section(MOMENTUM, o -> writeMomentum(o, progress.momentum));
    }
    out.data.writeInt(END);
    out.data.flush();
    out.data.writeInt((int) out.crc.getValue());
    out.data.flush();
  }

  private static void writeState(Out o, LinearState s) throws IOException {
    o.writeDoubles(s.weights(), s.weights().length);
    double[] u = s.averageAccumulator();
    o.writeBoolean(u != null);
    if (u != null) {
      o.writeDoubles(u, u.length);
    }
    o.writeDouble(s.clock());
  }

  private static void writeHistory(Out o, TrainingProgress p) throws IOException {
    int n = p.epochs.size();
    o.writeInt(n);
    for (int e = 0; e < n; e++) {
      EpochStats s = p.epochs.get(e);
      o.writeLong(s.examples);
      o.writeDouble(s.weightSeen);
      o.writeLong(s.mistakes);
      o.writeLong(s.updates);
      o.writeDouble(s.perceptronLoss);
      o.writeDouble(s.hingeLoss);
      o.writeLong(s.nonFiniteMargins);
      o.writeDouble(s.stepSum);
      o.writeDouble(p.weightChanges.get(e));
      o.writeDouble(p.seconds.get(e));
      long[] updates = p.workerUpdates.get(e);
      o.writeLongs(updates);
    }
    double[] validation = new double[p.validationAccuracy.size()];
    for (int e = 0; e < validation.length; e++) {
      validation[e] = p.validationAccuracy.get(e);
    }
    o.writeDoubles(validation, validation.length);
  }

  private static void writeMomentum(Out o, BlockMomentum m) throws IOException {
    o.writeDouble(m.momentum());
    o.writeDouble(m.normBound());
    o.writeDouble(m.initialSquaredNorm());
    o.writeDoubles(m.velocity(), m.velocity().length);
    o.writeDouble(m.mass());
    o.writeDouble(m.velocityMass());
    o.writeLong(m.restarts());
  }

  private static void writeVote(Out o, VotedPerceptron.Builder vote) throws IOException {
    o.writeInt(vote.numClasses());
    o.writeInt(vote.numFeatures());
    o.writeBoolean(vote.fitIntercept());
    List<double[]> starts = vote.startVectors();
    o.writeInt(starts.size());
    for (double[] s : starts) {
      o.writeDoubles(s, s.length);
    }
    List<VoteTrace> traces = vote.traces();
    o.writeInt(traces.size());
    for (int t = 0; t < traces.size(); t++) {
      VoteTrace trace = traces.get(t);
      int count = trace.updates();
      int stored = (int) trace.storedValues();
      o.writeInt(vote.epochOf(t));
      o.writeDouble(vote.share(t));
      o.writeInt(trace.startVector());
      o.writeDouble(trace.startClock());
      o.writeDouble(trace.endClock());
      o.writeDouble(trace.mixWeight());
      o.writeInt(count + 1);
      for (int j = 0; j <= count; j++) {
        o.writeInt(trace.rowStart(j));
      }
      o.writeInt(stored);
      for (int k = 0; k < stored; k++) {
        o.writeInt(trace.index(k));
      }
      o.writeInt(stored);
      for (int k = 0; k < stored; k++) {
        o.writeDouble(trace.value(k));
      }
      o.writeInt(count);
      for (int j = 0; j < count; j++) {
        o.writeInt(trace.raised(j));
      }
      o.writeInt(count);
      for (int j = 0; j < count; j++) {
        o.writeInt(trace.lowered(j));
      }
      o.writeInt(count);
      for (int j = 0; j < count; j++) {
        o.writeDouble(trace.delta(j));
      }
      o.writeInt(count);
      for (int j = 0; j < count; j++) {
        o.writeDouble(trace.clockBefore(j));
      }
    }
  }

  private interface Body {
    void write(Out out) throws IOException;
  }

  /**
   * The writing side: a stream that feeds the checksum, and a counting mode in which nothing is
   * written, used to learn a section's length before writing it (sections are written twice, once
   * counted, once for real, so that no section is ever buffered in memory).
   */
  private static final class Out {
    final CRC32C crc = new CRC32C();
    final DataOutputStream data;
    private final ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
    private boolean counting;
    private long count;

    Out(OutputStream raw) {
      OutputStream checked = new FilterOutputStream(new java.io.BufferedOutputStream(raw, CHUNK)) {
        @Override
        public void write(int b) throws IOException {
          crc.update(b);
          out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          crc.update(b, off, len);
          out.write(b, off, len);
        }
      };
      this.data = new DataOutputStream(checked);
    }

    void section(int tag, Body body) throws IOException {
      counting = true;
      count = 0;
      body.write(this);
      long length = count;
      counting = false;
      data.writeInt(tag);
      data.writeLong(length);
      count = 0;
      body.write(this);
      if (count != length) {
        throw new IllegalStateException("section " + tag + " wrote " + count + " bytes, counted "
            + length);
      }
    }

    void writeInt(int v) throws IOException {
      count += 4;
      if (!counting) {
        data.writeInt(v);
      }
    }

    void writeLong(long v) throws IOException {
      count += 8;
      if (!counting) {
        data.writeLong(v);
      }
    }

    void writeDouble(double v) throws IOException {
      count += 8;
      if (!counting) {
        data.writeDouble(v);
      }
    }

    void writeBoolean(boolean v) throws IOException {
      writeByte(v ? 1 : 0);
    }

    void writeByte(int v) throws IOException {
      count += 1;
      if (!counting) {
        data.writeByte(v);
      }
    }

    void writeUTF(String s) throws IOException {
      java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
      new DataOutputStream(b).writeUTF(s);
      count += b.size();
      if (!counting) {
        b.writeTo(data);
      }
    }

    void writeDoubles(double[] a, int n) throws IOException {
      writeInt(n);
      count += 8L * n;
      if (counting) {
        return;
      }
      for (int from = 0; from < n; from += CHUNK / 8) {
        int len = Math.min(CHUNK / 8, n - from);
        chunk.clear();
        chunk.asDoubleBuffer().put(a, from, len);
        data.write(chunk.array(), 0, len * 8);
      }
    }

    void writeLongs(long[] a) throws IOException {
      writeInt(a.length);
      for (long v : a) {
        writeLong(v);
      }
    }
  }

  // ---------------------------------------------------------------------------------- reading

  /**
   * Reads a checkpoint of {@code length} bytes.
   *
   * @throws Unreadable if it is not a sound checkpoint in this format of the training
   *     {@code fingerprint} identifies, with {@code shape}
   * @throws IOException if the file system fails (not the file's content)
   */
  static TrainingProgress read(InputStream raw, long length, String fingerprint, Shape shape)
      throws IOException, Unreadable {
    In in = new In(raw, length);
    try {
      return readChecked(in, fingerprint, shape);
    } catch (EOFException e) {
      throw new Unreadable("it is truncated: the file ends after " + length + " bytes, inside "
          + in.where(), false);
    }
  }

  private static TrainingProgress readChecked(In in, String fingerprint, Shape shape)
      throws IOException, Unreadable {
    byte[] magic = new byte[MAGIC.length];
    int got = in.readUpTo(magic);
    if (got < MAGIC.length || !Arrays.equals(magic, MAGIC)) {
      if (got >= 2 && ((magic[0] & 0xff) << 8 | (magic[1] & 0xff)) == JAVA_STREAM_MAGIC) {
        throw new Unreadable("it is a Java serialization stream, not a checkpoint in this"
            + " version's format (checkpoints were Java-serialized in format 1; such files are"
            + " no longer read, because reading one can run code named in it)", false);
      }
      throw new Unreadable(got < MAGIC.length && got == in.length
          ? "it is truncated: the file holds only " + got + " bytes"
          : "it is not a spark-perceptron checkpoint (its first bytes are not the checkpoint"
              + " header)", false);
    }
    int version = in.data.readInt();
    if (version != VERSION) {
      in.requireChecksumOfRest();
      throw new Unreadable("it is in checkpoint format " + version + (version > VERSION
          ? ", written by a newer spark-perceptron" : "") + "; this version reads only format "
          + VERSION, false);
    }
    String stored;
    try {
      stored = in.data.readUTF();
    } catch (java.io.UTFDataFormatException e) {
      stored = null;
    }
    if (stored == null || !stored.equals(fingerprint)) {
      in.requireChecksumOfRest(); // a damaged fingerprint is damage, not another training
      throw stored == null ? new Unreadable("it is damaged: its fingerprint is not text", false)
          : new Unreadable("it belongs to a different training", true);
    }

    TrainingProgress progress = null;
    LinearState state = null;
    LinearState best = null;
    int bestKind = -1;
    boolean[] seen = new boolean[SECTION_NAMES.length];
    while (true) {
      in.section = -1;
      int tag = in.data.readInt();
      if (tag == END) {
        break;
      }
      long sectionLength = in.data.readLong();
      if (tag < 0 || sectionLength < 0 || sectionLength > in.remainingInFile()) {
        throw new Unreadable(tag < 0 || sectionLength < 0
            ? "it is damaged: a section header holds tag " + tag + " and length " + sectionLength
            : "it is truncated or damaged: section " + name(tag) + " claims " + sectionLength
                + " bytes, but only " + in.remainingInFile() + " remain in the file", false);
      }
      in.enter(tag, sectionLength);
      if (tag >= OPTIONAL_TAGS) {
        in.skipSection();
        continue;
      }
      if (tag >= SECTION_NAMES.length) {
        in.requireChecksumOfRest(); // a damaged tag is damage, not a newer version
        throw new Unreadable("it holds a section (tag " + tag + ") that this version does not"
            + " know: it was written by a newer spark-perceptron", false);
      }
      if (seen[tag]) {
        throw new Unreadable("it is damaged: section " + name(tag) + " appears twice", false);
      }
      seen[tag] = true;
      switch (tag) {
        case PROGRESS:
          progress = new TrainingProgress(null, null);
          progress.epochsDone = in.readInt();
          progress.modelEpoch = in.readInt();
          progress.bestAccuracy = in.readDouble();
          String reason = in.readUTF();
          try {
            progress.stopReason = StopReason.valueOf(reason);
          } catch (IllegalArgumentException e) {
            throw in.damaged("stop reason '" + reason + "' is unknown");
          }
          bestKind = in.readByte();
          break;
        case STATE:
          state = readState(in, shape);
          break;
        case BEST:
          best = readState(in, shape);
          break;
        case HISTORY:
          if (progress == null) {
            throw in.damaged("it comes before section PROGRESS");
          }
          readHistory(in, progress, shape);
          break;
        case MOMENTUM:
          if (progress == null) {
            throw in.damaged("it comes before section PROGRESS");
          }
          progress.momentum = readMomentum(in, shape);
          break;
        default:
          if (progress == null) {
            throw in.damaged("it comes before section PROGRESS");
          }
          progress.vote = readVote(in, shape);
          break;
      }
      in.leave();
    }
    in.section = -1;
    long computed = in.crc.getValue();
    int storedCrc = in.data.readInt();
    if (in.position != in.length) {
      throw new Unreadable("it is damaged: " + (in.length - in.position) + " bytes follow its"
          + " end", false);
    }
    if ((int) computed != storedCrc) {
      throw checksumMismatch(storedCrc, computed);
    }
    return assemble(progress, state, best, bestKind, seen, shape);
  }

  private static Unreadable checksumMismatch(int stored, long computed) {
    return new Unreadable(String.format(Locale.ROOT, "it is damaged: its checksum does not"
        + " match its content (CRC32C %08x stored, %08x computed)", stored, computed), false);
  }

  /** Checks that the sections found make a training's progress of the expected shape. */
  private static TrainingProgress assemble(TrainingProgress progress, LinearState state,
      LinearState best, int bestKind, boolean[] seen, Shape shape) throws Unreadable {
    for (int tag : new int[] {PROGRESS, STATE, HISTORY}) {
      if (!seen[tag]) {
        throw new Unreadable("it is damaged: section " + name(tag) + " is missing", false);
      }
    }
    if (seen[VOTE] != shape.voted()) {
      throw new Unreadable("it is damaged: " + (seen[VOTE] ? "it holds a vote, but the"
          + " training does not vote" : "section VOTE is missing"), false);
    }
    if (seen[MOMENTUM] != (shape.momentum != 0.0)) {
      throw new Unreadable("it is damaged: " + (seen[MOMENTUM] ? "it holds a block momentum,"
          + " but the training mixes without one" : "section MOMENTUM is missing"), false);
    }
    if (bestKind < 0 || bestKind > 2 || (bestKind == 2) != seen[BEST]) {
      throw new Unreadable("it is damaged: the best state is marked " + bestKind + " but"
          + " section BEST is " + (seen[BEST] ? "present" : "missing"), false);
    }
    int epochs = progress.epochsDone;
    if (epochs < 1 || epochs > shape.maxIter || progress.modelEpoch < 0
        || progress.modelEpoch > epochs || progress.epochs.size() != epochs
        || (!progress.validationAccuracy.isEmpty()
            && progress.validationAccuracy.size() != epochs)) {
      throw new Unreadable("it is damaged: it records " + epochs + " epochs done (maxIter "
          + shape.maxIter + "), model epoch " + progress.modelEpoch + ", "
          + progress.epochs.size() + " epochs of history", false);
    }
    progress.state = state;
    progress.best = bestKind == 1 ? state : best;
    return progress;
  }

  private static LinearState readState(In in, Shape shape) throws IOException, Unreadable {
    int expected = shape.learner.stateLength();
    double[] w = in.readDoubles();
    boolean hasU = in.readBoolean();
    double[] u = hasU ? in.readDoubles() : null;
    double clock = in.readDouble();
    if (w.length != expected || (u != null && u.length != expected)
        || hasU != shape.learner.averaging().keepsAverage()) {
      throw in.damaged("it holds weights of length " + w.length + (hasU ? " with" : " without")
          + " an averaging accumulator, where this training has " + expected + (shape.learner
              .averaging().keepsAverage() ? " with" : " without") + " one");
    }
    return new LinearState(w, u, clock);
  }

  private static void readHistory(In in, TrainingProgress p, Shape shape)
      throws IOException, Unreadable {
    // 8 stats, 2 doubles and the worker array's length: at least 84 bytes per epoch.
    int n = in.readCount(84);
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
      p.epochs.add(s);
      p.weightChanges.add(in.readDouble());
      p.seconds.add(in.readDouble());
      long[] updates = in.readLongs();
      if (updates.length != shape.numWorkers) {
        throw in.damaged("epoch " + (e + 1) + " records " + updates.length + " workers,"
            + " this training has " + shape.numWorkers);
      }
      p.workerUpdates.add(updates);
    }
    for (double v : in.readDoubles()) {
      p.validationAccuracy.add(v);
    }
  }

  private static BlockMomentum readMomentum(In in, Shape shape) throws IOException, Unreadable {
    if (shape.momentum == 0.0) {
      throw new Unreadable("it is damaged: it holds a block momentum, but the training mixes"
          + " without one", false);
    }
    double beta = in.readDouble();
    double rho = in.readDouble();
    double initialSquaredNorm = in.readDouble();
    double[] velocity = in.readDoubles();
    double mass = in.readDouble();
    double velocityMass = in.readDouble();
    long restarts = in.readLong();
    // β and ρ follow from the params and the data (in the fingerprint): equal bit for bit.
    if (Double.compare(beta, shape.momentum) != 0
        || Double.compare(rho, shape.momentumBound) != 0) {
      throw in.damaged("its momentum " + beta + " and bound " + rho + " differ from this"
          + " training's " + shape.momentum + " and " + shape.momentumBound);
    }
    int expected = shape.learner.stateLength();
    if (velocity.length != expected) {
      throw in.damaged("its velocity has length " + velocity.length + ", this training's state "
          + expected);
    }
    if (!(initialSquaredNorm >= 0) || !(mass >= 0) || !(velocityMass >= 0) || restarts < 0) {
      throw in.damaged("initial norm " + initialSquaredNorm + ", mass " + mass
          + ", velocity mass " + velocityMass + ", restarts " + restarts);
    }
    BlockMomentum m = new BlockMomentum(expected, beta, rho, initialSquaredNorm);
    m.restore(velocity, mass, velocityMass, restarts);
    return m;
  }

  private static VotedPerceptron.Builder readVote(In in, Shape shape)
      throws IOException, Unreadable {
    LearnerConfig learner = shape.learner;
    int numClasses = in.readInt();
    int numFeatures = in.readInt();
    boolean fitIntercept = in.readBoolean();
    if (numClasses != learner.numClasses() || numFeatures != learner.numFeatures()
        || fitIntercept != learner.fitIntercept()) {
      throw in.damaged("its vote is for " + numClasses + " classes and " + numFeatures
          + " features, this training has " + learner.numClasses() + " and "
          + learner.numFeatures());
    }
    int s = in.readCount(4);
    List<double[]> starts = new ArrayList<>();
    for (int i = 0; i < s; i++) {
      starts.add(in.readDoubles());
    }
    int t = in.readCount(4 + 8 + 4 + 3 * 8 + 7 * 4);
    List<VoteTrace> traces = new ArrayList<>();
    double[] shares = new double[t];
    int[] epochs = new int[t];
    for (int i = 0; i < t; i++) {
      epochs[i] = in.readInt();
      shares[i] = in.readDouble();
      int startVector = in.readInt();
      double startClock = in.readDouble();
      double endClock = in.readDouble();
      double mixWeight = in.readDouble();
      int[] rowStart = in.readInts();
      int[] indices = in.readInts();
      double[] values = in.readDoubles();
      int[] raised = in.readInts();
      int[] lowered = in.readInts();
      double[] delta = in.readDoubles();
      double[] clockBefore = in.readDoubles();
      try {
        traces.add(VoteTrace.restore(startVector, startClock, endClock, mixWeight, rowStart,
            indices, values, raised, lowered, delta, clockBefore));
      } catch (IllegalArgumentException e) {
        throw in.damaged(e.getMessage());
      }
    }
    try {
      return VotedPerceptron.Builder.restore(numClasses, numFeatures, fitIntercept, starts,
          traces, shares, epochs);
    } catch (IllegalArgumentException e) {
      throw in.damaged(e.getMessage());
    }
  }

  private static String name(int tag) {
    return tag >= 0 && tag < SECTION_NAMES.length ? SECTION_NAMES[tag] : "with tag " + tag;
  }

  /**
   * The reading side: counts bytes and feeds the checksum, and bounds every read by the current
   * section, so that a damaged length is an error before it is an allocation.
   */
  private static final class In {
    final CRC32C crc = new CRC32C();
    final long length;
    final DataInputStream data;
    long position;
    int section = -1;
    private long sectionEnd;
    private final byte[] chunk;

    In(InputStream raw, long length) {
      this.length = length;
      int buffer = (int) Math.max(64, Math.min(CHUNK, length));
      this.chunk = new byte[buffer - buffer % 8];
      InputStream counted = new FilterInputStream(new java.io.BufferedInputStream(raw, buffer)) {
        @Override
        public int read() throws IOException {
          int b = in.read();
          if (b >= 0 && position < In.this.length - 4) {
            crc.update(b);
          }
          if (b >= 0) {
            position++;
          }
          return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          int n = in.read(b, off, len);
          if (n > 0) {
            long checked = Math.max(0, Math.min(n, In.this.length - 4 - position));
            crc.update(b, off, (int) checked);
            position += n;
          }
          return n;
        }

        @Override
        public long skip(long n) throws IOException {
          // Skipped bytes must still feed the checksum: read them.
          long done = 0;
          while (done < n) {
            int r = read(chunk, 0, (int) Math.min(chunk.length, n - done));
            if (r < 0) {
              break;
            }
            done += r;
          }
          return done;
        }
      };
      this.data = new DataInputStream(counted);
    }

    long remainingInFile() {
      // What follows the last section: the END tag and the checksum.
      return length - position - 8;
    }

    String where() {
      return section >= 0 ? "section " + name(section) : "its header or section framing";
    }

    int readUpTo(byte[] b) throws IOException {
      int n = 0;
      while (n < b.length) {
        int r = data.read(b, n, b.length - n);
        if (r < 0) {
          break;
        }
        n += r;
      }
      return n;
    }

    void enter(int tag, long sectionLength) {
      section = tag;
      sectionEnd = position + sectionLength;
    }

    void leave() throws Unreadable {
      if (position != sectionEnd) {
        throw damaged("it holds " + (sectionEnd - position) + " bytes more than its fields");
      }
    }

    void skipSection() throws IOException {
      long n = sectionEnd - position;
      if (data.skip(n) != n) {
        throw new EOFException();
      }
    }

    /** Reads to the end of the file, feeding the checksum, and compares it. */
    void requireChecksumOfRest() throws IOException, Unreadable {
      long n = length - 4 - position;
      if (n < 0 || data.skip(n) != n) {
        throw new EOFException();
      }
      long computed = crc.getValue();
      int stored = data.readInt();
      if ((int) computed != stored) {
        throw checksumMismatch(stored, computed);
      }
    }

    Unreadable damaged(String detail) {
      return new Unreadable("it is damaged: section " + name(section) + " is inconsistent ("
          + detail + ")", false);
    }

    private void need(long bytes) throws Unreadable {
      if (bytes > sectionEnd - position) {
        throw damaged("a field of " + bytes + " bytes runs past the section's end, "
            + (sectionEnd - position) + " bytes away");
      }
    }

    int readInt() throws IOException, Unreadable {
      need(4);
      return data.readInt();
    }

    long readLong() throws IOException, Unreadable {
      need(8);
      return data.readLong();
    }

    double readDouble() throws IOException, Unreadable {
      need(8);
      return data.readDouble();
    }

    byte readByte() throws IOException, Unreadable {
      need(1);
      return data.readByte();
    }

    boolean readBoolean() throws IOException, Unreadable {
      byte b = readByte();
      if (b != 0 && b != 1) {
        throw damaged("a flag holds " + b);
      }
      return b == 1;
    }

    String readUTF() throws IOException, Unreadable {
      need(2);
      int utfLength = data.readUnsignedShort();
      need(utfLength);
      byte[] bytes = new byte[utfLength];
      data.readFully(bytes);
      java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream(utfLength + 2);
      b.write(utfLength >>> 8);
      b.write(utfLength);
      b.write(bytes, 0, utfLength);
      try {
        return new DataInputStream(new java.io.ByteArrayInputStream(b.toByteArray())).readUTF();
      } catch (java.io.UTFDataFormatException e) {
        throw damaged("a text field is not valid modified UTF-8");
      }
    }

    /** A count of items that take at least {@code minBytes} each, checked against the section. */
    int readCount(int minBytes) throws IOException, Unreadable {
      int n = readInt();
      if (n < 0 || (long) n * minBytes > sectionEnd - position) {
        throw damaged("it claims " + n + " items of at least " + minBytes + " bytes in "
            + (sectionEnd - position) + " bytes");
      }
      return n;
    }

    double[] readDoubles() throws IOException, Unreadable {
      int n = readCount(8);
      double[] a = new double[n];
      for (int from = 0; from < n; from += chunk.length / 8) {
        int len = Math.min(chunk.length / 8, n - from);
        data.readFully(chunk, 0, len * 8);
        ByteBuffer.wrap(chunk, 0, len * 8).asDoubleBuffer().get(a, from, len);
      }
      return a;
    }

    int[] readInts() throws IOException, Unreadable {
      int n = readCount(4);
      int[] a = new int[n];
      for (int from = 0; from < n; from += chunk.length / 4) {
        int len = Math.min(chunk.length / 4, n - from);
        data.readFully(chunk, 0, len * 4);
        ByteBuffer.wrap(chunk, 0, len * 4).asIntBuffer().get(a, from, len);
      }
      return a;
    }

    long[] readLongs() throws IOException, Unreadable {
      int n = readCount(8);
      long[] a = new long[n];
      for (int i = 0; i < n; i++) {
        a[i] = data.readLong();
      }
      return a;
    }
  }
}
