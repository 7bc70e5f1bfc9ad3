package io.github.sparkperceptron.internal.engine;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.VoteTrace;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import io.github.sparkperceptron.internal.mixing.BlockMomentum;
import io.github.sparkperceptron.internal.plan.MixingSettings;
import io.github.sparkperceptron.internal.rounds.TrainingProgress;
import io.github.sparkperceptron.internal.store.StateFile.Unreadable;
import io.github.sparkperceptron.internal.store.StateFile;
import io.github.sparkperceptron.internal.store.StateReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The checkpoint file format: a {@link TrainingProgress} written field by field as plain numbers
 * and arrays, so that reading a checkpoint never creates an object of a class the file names.
 * (Format 1 was a Java-serialized object stream, in which a planted file could name any class on
 * the driver's class path and have its deserialization code run.)
 *
 * <p>A codec on {@link StateFile}, the container of every state file: kind {@code CKPT} (the
 * magic 0x89 'S' 'P' 'C' 'K' 'P' 'T' '\n'), version {@value #VERSION}, the training's
 * fingerprint (from the Spark face's params and the data) as the header. Sections of version 4:
 * <pre>
 *  1 PROGRESS  int epochsDone, int modelEpoch, double bestAccuracy, UTF stopReason,
 *              byte best (0: none, 1: the same as the state, 2: in section BEST)
 *  2 STATE     the mixed state after epochsDone epochs
 *  3 BEST      the best state on validation data (only when PROGRESS says 2)
 *  4 HISTORY   the epochs' {@link EpochHistory}, in its layout (which a training summary's
 *              file also writes)
 *  5 VOTE      (averaging=vote only) int numClasses, int numFeatures, boolean fitIntercept,
 *              int s, s × double[] startVector, int t, t × (int epoch, double share,
 *              int startVector, double startClock, double endClock, double mixWeight,
 *              int[] rowStart, int[] indices, double[] values, int[] raised, int[] lowered,
 *              double[] delta, double[] clockBefore)
 *  6 MOMENTUM  (mixing=momentum with several workers only) the whole {@link BlockMomentum}
 *              but β, in the layout of {@link MomentumState}, which a stream's learner
 *              state also writes
 * </pre>
 *
 * Checkpoints are written at the end of an epoch, after its last mixing round, so no state of a
 * round in progress exists to be saved: the mixing rounds per epoch are a param (part of the
 * fingerprint), and each epoch's history sums its rounds. Version 3 added {@code stepSum} to
 * HISTORY (a changed encoding) and the MOMENTUM section; version 4 wrote MOMENTUM with the
 * stream's codec (it had a layout of its own, with β first, which the fingerprint fixes).
 *
 * <p>A checkpoint lives only as long as its training, so there is no migration: a reader refuses
 * every version but its own, and a section tag it does not know below
 * {@link StateFile#OPTIONAL_TAGS} (resuming without that state would not give the same model).
 *
 * <p>Beyond the container's checks, the contents must fit the training's shape (state length,
 * classes, features, workers) before they are used. The checksum detects damage, not forgery:
 * whoever can write the checkpoint directory can write a well-formed checkpoint with other
 * weights, as they could replace the training data.
 */
final class CheckpointFormat {
  static final int VERSION = 4;
  static final int OPTIONAL_TAGS = StateFile.OPTIONAL_TAGS;

  static final int PROGRESS = 1;
  static final int STATE = 2;
  static final int BEST = 3;
  static final int HISTORY = 4;
  static final int VOTE = 5;
  static final int MOMENTUM = 6;

  static final StateFile.Kind KIND = new StateFile.Kind("CKPT", "checkpoint", "fingerprint",
      " (checkpoints were Java-serialized in format 1; such files are no longer read, because"
          + " reading one can run code named in it)",
      "PROGRESS", "STATE", "BEST", "HISTORY", "VOTE", "MOMENTUM");
  static final byte[] MAGIC = KIND.magic();

  private CheckpointFormat() {
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
      return learner.averaging() == Averaging.VOTE;
    }
  }

  // ---------------------------------------------------------------------------------- writing

  /** Writes {@code progress} as a checkpoint of the training {@code fingerprint} identifies. */
  static void write(TrainingProgress progress, String fingerprint, OutputStream raw)
      throws IOException {
    StateFile.Out out = new StateFile.Out(raw, KIND, VERSION, fingerprint);
    int bestKind = progress.best == null ? 0 : progress.best == progress.state ? 1 : 2;
    out.section(PROGRESS, o -> {
      o.writeInt(progress.epochsDone);
      o.writeInt(progress.modelEpoch);
      o.writeDouble(progress.bestAccuracy);
      o.writeUTF(progress.stopReason.name());
      o.writeByte(bestKind);
    });
    out.section(STATE, o -> o.writeLinearState(progress.state));
    if (bestKind == 2) {
      out.section(BEST, o -> o.writeLinearState(progress.best));
    }
    out.section(HISTORY, o -> EpochHistory.of(progress).write(o));
    if (progress.vote != null) {
      out.section(VOTE, o -> writeVote(o, progress.vote));
    }
    if (progress.momentum != null) {
      out.section(MOMENTUM, o -> MomentumState.of(progress.momentum).write(o));
    }
    out.finish();
  }

  private static void writeVote(StateFile.Out o, VotedPerceptron.Builder vote) throws IOException {
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
    return StateFile.read(raw, length, KIND, in -> decode(in, fingerprint, shape));
  }

  private static TrainingProgress decode(StateReader in, String fingerprint, Shape shape)
      throws IOException, Unreadable {
    in.requireVersion(VERSION);
    in.requireHeader(in.header(), fingerprint, "a different training");
    TrainingProgress progress = null;
    LinearState state = null;
    LinearState best = null;
    int bestKind = -1;
    for (int tag = in.nextSection(); tag != StateFile.END; tag = in.nextSection()) {
      if (tag != PROGRESS && tag != STATE && tag != BEST && progress == null) {
        throw in.damaged("it comes before section PROGRESS");
      }
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
          EpochHistory.read(in, shape.numWorkers).appendTo(progress);
          break;
        case MOMENTUM:
          progress.momentum = readMomentum(in, shape);
          break;
        default:
          progress.vote = readVote(in, shape);
          break;
      }
      in.leave();
    }
    in.finish();
    return assemble(in, progress, state, best, bestKind, shape);
  }

  /** Checks that the sections found make a training's progress of the expected shape. */
  private static TrainingProgress assemble(StateReader in, TrainingProgress progress,
      LinearState state, LinearState best, int bestKind, Shape shape) throws Unreadable {
    for (int tag : new int[] {PROGRESS, STATE, HISTORY}) {
      if (!in.seen(tag)) {
        throw new Unreadable("it is damaged: section " + in.sectionName(tag) + " is missing",
            false);
      }
    }
    if (in.seen(VOTE) != shape.voted()) {
      throw new Unreadable("it is damaged: " + (in.seen(VOTE) ? "it holds a vote, but the"
          + " training does not vote" : "section VOTE is missing"), false);
    }
    if (in.seen(MOMENTUM) != (shape.momentum != 0.0)) {
      throw new Unreadable("it is damaged: " + (in.seen(MOMENTUM) ? "it holds a block momentum,"
          + " but the training mixes without one" : "section MOMENTUM is missing"), false);
    }
    if (bestKind < 0 || bestKind > 2 || (bestKind == 2) != in.seen(BEST)) {
      throw new Unreadable("it is damaged: the best state is marked " + bestKind + " but"
          + " section BEST is " + (in.seen(BEST) ? "present" : "missing"), false);
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

  private static LinearState readState(StateReader in, Shape shape)
      throws IOException, Unreadable {
    int expected = shape.learner.stateLength();
    LinearState state = in.readLinearState();
    double[] w = state.weights();
    double[] u = state.averageAccumulator();
    boolean hasU = u != null;
    if (w.length != expected || (u != null && u.length != expected)
        || hasU != shape.learner.averaging().keepsAverage()) {
      throw in.damaged("it holds weights of length " + w.length + (hasU ? " with" : " without")
          + " an averaging accumulator, where this training has " + expected + (shape.learner
              .averaging().keepsAverage() ? " with" : " without") + " one");
    }
    return state;
  }

  private static BlockMomentum readMomentum(StateReader in, Shape shape)
      throws IOException, Unreadable {
    if (shape.momentum == 0.0) {
      throw new Unreadable("it is damaged: it holds a block momentum, but the training mixes"
          + " without one", false);
    }
    MomentumState m = MomentumState.read(in);
    // ρ follows from the params and the data (in the fingerprint): equal bit for bit. (β too,
    // which is why the section does not hold it.)
    if (Double.compare(m.rho(), shape.momentumBound) != 0) {
      throw in.damaged("its momentum's bound " + m.rho() + " differs from this training's "
          + shape.momentumBound);
    }
    int expected = shape.learner.stateLength();
    if (m.velocity().length != expected) {
      throw in.damaged("its velocity has length " + m.velocity().length + ", this training's"
          + " state " + expected);
    }
    return m.resume(shape.momentum);
  }

  private static VotedPerceptron.Builder readVote(StateReader in, Shape shape)
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
}
