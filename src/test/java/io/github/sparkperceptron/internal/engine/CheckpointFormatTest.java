package io.github.sparkperceptron.internal.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.OnlineLearner;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.internal.kernel.VoteTrace;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import io.github.sparkperceptron.internal.mixing.BlockMomentum;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import io.github.sparkperceptron.internal.rounds.TrainingProgress;
import io.github.sparkperceptron.internal.store.StateFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The checkpoint file format on its own (no Spark): what it writes reads back exactly, and
 * anything else — a planted serialized object, a truncated or bit-flipped file, another
 * training's, another format's — is refused with a reason, never read into the training and
 * never a ClassCastException, an array exception or an OutOfMemoryError.
 */
class CheckpointFormatTest {
  private static final String FINGERPRINT = "f00d";
  private static final int PARTITIONS = 3;
  private static final int MAX_ITER = 10;

  /**
   * A class whose deserialization leaves a trace: what a planted checkpoint would smuggle in (a
   * gadget on the class path). Reading a checkpoint must never run it.
   */
  static final class Trap implements Serializable {
    private static final long serialVersionUID = 1L;
    static volatile boolean deserialized;

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      deserialized = true;
    }
  }

  @BeforeEach
  void resetTrap() {
    Trap.deserialized = false;
  }

  private static LearnerConfig learner(int numClasses, Averaging averaging) {
    return new LearnerConfig(6, numClasses, true, 1.0, UpdateRule.PERCEPTRON, 1.0, averaging);
  }

  private static CheckpointFormat.Shape shape(LearnerConfig learner) {
    return new CheckpointFormat.Shape(learner, PARTITIONS, MAX_ITER);
  }

  /**
   * The progress of 3 real epochs of the kernel on seeded random rows (so the vote traces hold
   * what training records), with history, and a best state that is a separate object.
   */
  private static TrainingProgress progress(LearnerConfig learner) {
    Random rnd = new Random(5);
    TrainingBlockBuilder b = new TrainingBlockBuilder(learner.numFeatures());
    for (int r = 0; r < 24; r++) {
      int[] idx = {rnd.nextInt(3), 3 + rnd.nextInt(3)};
      double[] val = {rnd.nextGaussian(), rnd.nextGaussian()};
      b.addSparse(rnd.nextInt(learner.numClasses()), 1.0 + r % 2, idx, val, 2);
    }
    TrainingBlock block = b.build();
    VotedPerceptron.Builder vote = learner.averaging() == Averaging.VOTE
        ? new VotedPerceptron.Builder(learner.numClasses(), learner.numFeatures(), true) : null;
    TrainingProgress p = new TrainingProgress(LinearState.zero(learner), vote);
    int[] order = new int[block.numRows()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    for (int epoch = 1; epoch <= 3; epoch++) {
      LinearState state = p.state.copy();
      EpochStats stats = new EpochStats();
      List<VoteTrace> traces = new ArrayList<>();
      VoteTrace trace = null;
      if (vote != null) {
        trace = new VoteTrace(block.features(), vote.addStartVector(state.weights()),
            state.clock());
        traces.add(trace);
      }
      OnlineLearner.runEpoch(learner, block, order, state, 1.0, stats, trace);
      if (trace != null) {
        trace.finish(state.clock(), stats.updates);
        vote.addEpoch(epoch, traces);
      }
      p.state = state;
      p.epochsDone = epoch;
      p.epochs.add(stats);
      p.weightChanges.add(0.25 * epoch);
      p.seconds.add(0.5 + epoch);
      p.workerUpdates.add(new long[] {stats.updates, epoch, 0});
      p.validationAccuracy.add(0.5 + 0.1 * epoch);
    }
    p.best = p.state.copy();
    p.bestAccuracy = 0.8;
    p.modelEpoch = 3;
    p.stopReason = StopReason.TOL;
    return p;
  }

  private static byte[] bytes(TrainingProgress p) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CheckpointFormat.write(p, FINGERPRINT, out);
    return out.toByteArray();
  }

  private static TrainingProgress read(byte[] file, LearnerConfig learner)
      throws StateFile.Unreadable {
    try {
      return CheckpointFormat.read(new ByteArrayInputStream(file), file.length, FINGERPRINT,
          shape(learner));
    } catch (IOException e) {
      throw new AssertionError("an in-memory stream cannot fail", e);
    }
  }

  private static String refusal(byte[] file, LearnerConfig learner) {
    return assertThrows(StateFile.Unreadable.class, () -> read(file, learner))
        .getMessage();
  }

  @ParameterizedTest(name = "{0} classes, averaging={1}")
  @CsvSource({"2, vote", "3, vote", "2, average", "4, none"})
  void whatIsWrittenReadsBackExactly(int numClasses, String averaging) throws Exception {
    LearnerConfig learner = learner(numClasses, Averaging.fromParam(averaging));
    TrainingProgress p = progress(learner);
    TrainingProgress back = read(bytes(p), learner);

    assertEquals(p.epochsDone, back.epochsDone);
    assertEquals(p.modelEpoch, back.modelEpoch);
    assertEquals(p.bestAccuracy, back.bestAccuracy, 0.0);
    assertEquals(p.stopReason, back.stopReason);
    for (LinearState[] pair : new LinearState[][] {{p.state, back.state}, {p.best, back.best}}) {
      assertArrayEquals(pair[0].weights(), pair[1].weights(), 0.0);
      if (pair[0].averageAccumulator() == null) {
        assertEquals(null, pair[1].averageAccumulator());
      } else {
        assertArrayEquals(pair[0].averageAccumulator(), pair[1].averageAccumulator(), 0.0);
      }
      assertEquals(pair[0].clock(), pair[1].clock(), 0.0);
    }
    assertEquals(p.epochs.toString(), back.epochs.toString());
    for (int e = 0; e < p.epochs.size(); e++) {
      assertEquals(p.epochs.get(e).weightSeen, back.epochs.get(e).weightSeen, 0.0);
      assertEquals(p.epochs.get(e).nonFiniteMargins, back.epochs.get(e).nonFiniteMargins);
      assertTrue(p.epochs.get(e).stepSum > 0, "the kernel must have recorded update mass");
      assertEquals(p.epochs.get(e).stepSum, back.epochs.get(e).stepSum, 0.0);
      assertArrayEquals(p.workerUpdates.get(e), back.workerUpdates.get(e));
    }
    assertEquals(p.weightChanges, back.weightChanges);
    assertEquals(p.seconds, back.seconds);
    assertEquals(p.validationAccuracy, back.validationAccuracy);
    if (p.vote == null) {
      assertEquals(null, back.vote);
    } else {
      VotedPerceptron a = p.vote.build(3);
      VotedPerceptron b = back.vote.build(3);
      assertTrue(a.updateRaised().length > 0,
          "the vote must hold updates for this test to mean anything");
      assertEquals(a.startVectors().length, b.startVectors().length);
      for (int i = 0; i < a.startVectors().length; i++) {
        assertArrayEquals(a.startVectors()[i], b.startVectors()[i], 0.0);
      }
      assertArrayEquals(a.segmentStartWeights(), b.segmentStartWeights(), 0.0);
      assertArrayEquals(a.updateRowStarts(), b.updateRowStarts());
      assertArrayEquals(a.updateIndices(), b.updateIndices());
      assertArrayEquals(a.updateValues(), b.updateValues(), 0.0);
      assertArrayEquals(a.updateRaised(), b.updateRaised());
      assertArrayEquals(a.updateLowered(), b.updateLowered());
      assertArrayEquals(a.updateDeltas(), b.updateDeltas(), 0.0);
      assertArrayEquals(a.updateWeights(), b.updateWeights(), 0.0);
      // And the restored builder keeps collecting: a fourth epoch appends to it.
      back.vote.addStartVector(back.state.weights());
      assertEquals(a.startVectors().length + 1, back.vote.startVectors().size());
    }
  }

  /** A fixture written by an earlier version (src/test/resources/state-files/README.md). */
  static byte[] fixture(String name) throws IOException {
    try (InputStream in = CheckpointFormatTest.class.getResourceAsStream(
        "/state-files/" + name)) {
      assertNotNull(in, name + " is missing from src/test/resources/state-files");
      return in.readAllBytes();
    }
  }

  /**
   * The progress of the fixture {@code checkpoint-v4-momentum.ckpt} (and of v3's): {@link #progress} with a
   * block momentum after four rounds (whose look-aheads move the state, as they did there).
   */
  private static TrainingProgress fixtureWithMomentum(LearnerConfig learner) {
    TrainingProgress p = progress(learner);
    int length = learner.stateLength();
    p.momentum = new BlockMomentum(length, 2.0 / 3.0, 7.5, 0.25);
    Random rnd = new Random(11);
    for (int round = 0; round < 4; round++) {
      p.momentum.lookAhead(p.state.weights(), p.state.averageAccumulator(), p.state.clock());
      double[] dw = new double[length];
      for (int j = 0; j < length; j++) {
        dw[j] = rnd.nextGaussian();
      }
      p.momentum.afterRound(StateDelta.dense(dw, new double[length]), 1.0 + round);
    }
    return p;
  }

  /**
   * Checkpoints in format 4 load, and today's writer writes them byte for byte (so checkpoints
   * of a training interrupted under a version of format 4 resume under another).
   */
  @Test
  void formatFourCheckpointsLoadAndAreWrittenByteForByte() throws Exception {
    LearnerConfig voted = learner(3, Averaging.VOTE);
    byte[] file = fixture("checkpoint-v4-vote.ckpt");
    TrainingProgress expected = progress(voted);
    TrainingProgress back = read(file, voted);
    assertEquals(expected.epochsDone, back.epochsDone);
    assertEquals(expected.stopReason, back.stopReason);
    assertArrayEquals(expected.state.weights(), back.state.weights(), 0.0);
    assertArrayEquals(expected.best.averageAccumulator(), back.best.averageAccumulator(), 0.0);
    assertEquals(expected.epochs.toString(), back.epochs.toString());
    assertEquals(expected.vote.build(3).startVectors().length,
        back.vote.build(3).startVectors().length);
    assertArrayEquals(file, bytes(expected));

    LearnerConfig averaged = learner(3, Averaging.AVERAGE);
    file = fixture("checkpoint-v4-momentum.ckpt");
    expected = fixtureWithMomentum(averaged);
    back = CheckpointFormat.read(new ByteArrayInputStream(file), file.length, FINGERPRINT,
        new CheckpointFormat.Shape(averaged, PARTITIONS, MAX_ITER, 2.0 / 3.0, 7.5));
    assertArrayEquals(expected.momentum.velocity(), back.momentum.velocity(), 0.0);
    assertEquals(expected.momentum.mass(), back.momentum.mass(), 0.0);
    assertArrayEquals(expected.state.averageAccumulator(), back.state.averageAccumulator(), 0.0);
    assertArrayEquals(file, bytes(expected));
  }

  /**
   * A checkpoint lives only as long as its training, so there is no migration: one of format 3
   * (whose MOMENTUM section had a layout of its own) is refused, naming its format.
   */
  @Test
  void formatThreeCheckpointsAreRefusedNamingTheirFormat() throws Exception {
    for (String name : new String[] {"checkpoint-v3-vote.ckpt", "checkpoint-v3-momentum.ckpt"}) {
      String why = refusal(fixture(name), learner(3, Averaging.AVERAGE));
      assertTrue(why.contains("it is in checkpoint format 3; this version reads only format 4"),
          why);
    }
  }

  /**
   * Block momentum's whole state (β, ρ, ‖w₀‖², Δ, the masses, the restarts) reads back exactly,
   * and a restored momentum continues as the original: the next look-ahead and round move both
   * to the same weights. A checkpoint whose momentum does not match the training is refused.
   */
  @Test
  void blockMomentumReadsBackExactlyAndContinuesTheSame() throws Exception {
    LearnerConfig learner = learner(3, Averaging.AVERAGE);
    int length = learner.stateLength();
    double beta = 2.0 / 3.0;
    double rho = 7.5;
    TrainingProgress p = progress(learner);
    p.momentum = new BlockMomentum(length, beta, rho, 0.25);
    Random rnd = new Random(11);
    for (int round = 0; round < 4; round++) {
      p.momentum.lookAhead(p.state.weights(), p.state.averageAccumulator(), p.state.clock());
      p.momentum.afterRound(randomChange(rnd, length), 1.0 + round);
    }
    assertTrue(p.momentum.mass() > 0 && p.momentum.velocityMass() > 0);
    CheckpointFormat.Shape shape = new CheckpointFormat.Shape(learner, PARTITIONS, MAX_ITER,
        beta, rho);
    byte[] file = bytes(p);
    TrainingProgress back = CheckpointFormat.read(new ByteArrayInputStream(file), file.length,
        FINGERPRINT, shape);
    BlockMomentum a = p.momentum;
    BlockMomentum b = back.momentum;
    assertEquals(a.momentum(), b.momentum(), 0.0);
    assertEquals(a.normBound(), b.normBound(), 0.0);
    assertEquals(a.initialSquaredNorm(), b.initialSquaredNorm(), 0.0);
    assertArrayEquals(a.velocity(), b.velocity(), 0.0);
    assertEquals(a.mass(), b.mass(), 0.0);
    assertEquals(a.velocityMass(), b.velocityMass(), 0.0);
    assertEquals(a.restarts(), b.restarts());

    double[] wa = p.state.weights().clone();
    double[] wb = back.state.weights().clone();
    assertEquals(a.lookAhead(wa, null, 1.0), b.lookAhead(wb, null, 1.0));
    StateDelta next = randomChange(new Random(12), length);
    a.afterRound(next, 2.0);
    b.afterRound(next, 2.0);
    assertArrayEquals(wa, wb, 0.0);
    assertArrayEquals(a.velocity(), b.velocity(), 0.0);

    String why = assertThrows(StateFile.Unreadable.class, () -> CheckpointFormat.read(
        new ByteArrayInputStream(file), file.length, FINGERPRINT, new CheckpointFormat.Shape(
            learner, PARTITIONS, MAX_ITER, beta, 8.5))).getMessage();
    assertTrue(why.contains("section MOMENTUM is inconsistent") && why.contains("8.5"), why);
    why = refusal(file, learner);
    assertTrue(why.contains("it holds a block momentum, but the training mixes without one"),
        why);
    byte[] without = bytes(progress(learner));
    why = assertThrows(StateFile.Unreadable.class, () -> CheckpointFormat.read(
        new ByteArrayInputStream(without), without.length, FINGERPRINT, shape)).getMessage();
    assertTrue(why.contains("section MOMENTUM is missing"), why);
  }

  private static StateDelta randomChange(Random rnd, int length) {
    double[] dw = new double[length];
    for (int j = 0; j < length; j += 2) {
      dw[j] = rnd.nextGaussian();
    }
    return StateDelta.dense(dw, new double[length]);
  }

  @Test
  void aBestStateThatIsTheStateIsStoredOnceAndStaysShared() throws Exception {
    LearnerConfig learner = learner(2, Averaging.AVERAGE);
    TrainingProgress p = progress(learner);
    p.best = p.state;
    TrainingProgress separate = progress(learner);
    assertTrue(bytes(p).length < bytes(separate).length);
    TrainingProgress back = read(bytes(p), learner);
    assertSame(back.state, back.best);
  }

  @Test
  void aPlantedJavaSerializedObjectIsRefusedWithoutDeserializingIt() throws Exception {
    // Positive control: this stream does run the trap when Java deserializes it.
    byte[] planted = javaStream(true);
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(planted))) {
      in.readInt();
      in.readUTF();
      in.readObject();
    }
    assertTrue(Trap.deserialized, "the trap must work, or this test proves nothing");
    Trap.deserialized = false;

    LearnerConfig learner = learner(2, Averaging.AVERAGE);
    String why = refusal(planted, learner);
    assertTrue(why.contains("Java serialization stream"), why);
    assertFalse(Trap.deserialized, "reading a checkpoint ran code named in the file");
  }

  @Test
  void anObjectBehindAValidHeaderIsRefusedWithoutDeserializingIt() throws Exception {
    // The attack of the issue, transposed: a correct header (magic, version, fingerprint), then
    // a serialized object where the sections belong.
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(file);
    out.write(CheckpointFormat.MAGIC);
    out.writeInt(CheckpointFormat.VERSION);
    out.writeUTF(FINGERPRINT);
    out.write(javaStream(false));
    out.flush();
    String why = refusal(file.toByteArray(), learner(2, Averaging.AVERAGE));
    assertTrue(why.startsWith("it is damaged") || why.startsWith("it is truncated"), why);
    assertFalse(Trap.deserialized);
  }

  /** A format-1 checkpoint: Java serialization of the header and (here) a trap object. */
  private static byte[] javaStream(boolean withHeader) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      if (withHeader) {
        out.writeInt(1);
        out.writeUTF(FINGERPRINT);
      }
      out.writeObject(new Trap());
    }
    return bytes.toByteArray();
  }

  @Test
  void everyTruncationIsRefusedAsTruncated() throws Exception {
    LearnerConfig learner = learner(3, Averaging.VOTE);
    byte[] file = bytes(progress(learner));
    for (int length = 0; length < file.length; length++) {
      String why = refusal(Arrays.copyOf(file, length), learner);
      assertTrue(why.contains("truncated"), length + " bytes: " + why);
    }
  }

  @Test
  void aBitFlipInEveryByteIsRefused() throws Exception {
    // CRC32C detects every single-bit error; a flip in a length, a tag or the header is caught
    // by the structure before the checksum is reached. Either way: a reason, never a crash.
    // One flip per byte (bit i mod 8) reaches every field and every bit position.
    LearnerConfig learner = learner(3, Averaging.VOTE);
    byte[] file = bytes(progress(learner));
    int checksums = 0;
    for (int i = 0; i < file.length; i++) {
      byte[] flipped = file.clone();
      flipped[i] ^= (byte) (1 << (i % 8));
      String why = refusal(flipped, learner);
      assertTrue(why.startsWith("it is "), i + ": " + why);
      checksums += why.contains("checksum does not match") ? 1 : 0;
    }
    // Most flips land in numbers, where only the checksum can tell.
    assertTrue(checksums > file.length / 2, checksums + " of " + file.length);
  }

  @Test
  void aBitFlipInTheFingerprintIsDamageNotAnotherTraining() throws Exception {
    LearnerConfig learner = learner(2, Averaging.AVERAGE);
    byte[] file = bytes(progress(learner));
    byte[] flipped = file.clone();
    flipped[CheckpointFormat.MAGIC.length + 4 + 2] ^= 1; // first character of the fingerprint
    String why = refusal(flipped, learner);
    assertTrue(why.contains("checksum does not match"), why);
  }

  @Test
  void anotherTrainingsCheckpointIsRecognisedAsSuch() throws Exception {
    LearnerConfig learner = learner(2, Averaging.AVERAGE);
    byte[] file = bytes(progress(learner));
    StateFile.Unreadable e = assertThrows(StateFile.Unreadable.class,
        () -> CheckpointFormat.read(new ByteArrayInputStream(file), file.length, "other",
            shape(learner)));
    assertTrue(e.otherOwner);
  }

  @Test
  void aCheckpointOfAnotherShapeIsRefused() throws Exception {
    byte[] file = bytes(progress(learner(2, Averaging.AVERAGE)));
    String why = refusal(file, new LearnerConfig(7, 2, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.AVERAGE));
    assertTrue(why.contains("weights of length 7") && why.contains("this training has 8"), why);
    why = refusal(file, learner(2, Averaging.NONE));
    assertTrue(why.contains("with an averaging accumulator"), why);
    why = refusal(file, learner(2, Averaging.VOTE));
    assertTrue(why.contains("section VOTE is missing"), why);
  }

  @Test
  void otherFilesAndFormatsAreNamedForWhatTheyAre() throws Exception {
    LearnerConfig learner = learner(2, Averaging.AVERAGE);
    assertTrue(refusal("PAR1 not a checkpoint".getBytes(), learner)
        .contains("not a spark-perceptron checkpoint"));

    byte[] file = bytes(progress(learner));
    byte[] newer = withVersion(file, CheckpointFormat.VERSION + 1);
    String why = refusal(newer, learner);
    assertTrue(why.contains("format " + (CheckpointFormat.VERSION + 1)
        + ", written by a newer spark-perceptron"), why);
  }

  @Test
  void unknownSectionsAreRefusedUnlessOptional() throws Exception {
    LearnerConfig learner = learner(2, Averaging.AVERAGE);
    TrainingProgress p = progress(learner);
    String why = refusal(withExtraSection(bytes(p), 7), learner);
    assertTrue(why.contains("tag 7") && why.contains("newer spark-perceptron"), why);

    TrainingProgress back = read(withExtraSection(bytes(p), CheckpointFormat.OPTIONAL_TAGS),
        learner);
    assertArrayEquals(p.state.weights(), back.state.weights(), 0.0);
  }

  @Test
  void aLengthThatPromisesMoreThanTheFileHoldsAllocatesNothing() throws Exception {
    // A damaged array length (2^31 - 1 doubles, 16 GiB) inside a section whose own length is
    // consistent: refused by the bound on the section, before any allocation.
    LearnerConfig learner = learner(2, Averaging.AVERAGE);
    byte[] file = bytes(progress(learner));
    int stateArray = indexOfSection(file, CheckpointFormat.STATE) + 12;
    byte[] damaged = file.clone();
    ByteBuffer.wrap(damaged).putInt(stateArray, Integer.MAX_VALUE);
    String why = refusal(damaged, learner);
    assertTrue(why.contains("section STATE is inconsistent"), why);
  }

  /** Re-frames a file with another version number and a correct checksum. */
  private static byte[] withVersion(byte[] file, int version) {
    byte[] copy = file.clone();
    ByteBuffer.wrap(copy).putInt(CheckpointFormat.MAGIC.length, version);
    return withChecksum(copy);
  }

  /** Inserts a section with the given tag and 12 bytes of payload before END. */
  private static byte[] withExtraSection(byte[] file, int tag) {
    int end = file.length - 8;
    ByteBuffer b = ByteBuffer.allocate(file.length + 24);
    b.put(file, 0, end);
    b.putInt(tag).putLong(12).putLong(7).putInt(8);
    b.put(file, end, 8);
    return withChecksum(b.array());
  }

  private static byte[] withChecksum(byte[] file) {
    CRC32C crc = new CRC32C();
    crc.update(file, 0, file.length - 4);
    ByteBuffer.wrap(file).putInt(file.length - 4, (int) crc.getValue());
    return file;
  }

  /** The offset of a section's tag, found by walking the framing. */
  private static int indexOfSection(byte[] file, int tag) {
    ByteBuffer b = ByteBuffer.wrap(file);
    int pos = CheckpointFormat.MAGIC.length + 4;
    pos += 2 + (b.getShort(pos) & 0xffff);
    while (b.getInt(pos) != tag) {
      assertNotNull(b.getInt(pos) == 0 ? null : "", "section not found");
      pos += 12 + (int) b.getLong(pos + 4);
    }
    return pos;
  }
}
