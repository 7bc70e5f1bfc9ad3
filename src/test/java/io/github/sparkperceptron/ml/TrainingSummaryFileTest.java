package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.StopReason;
import io.github.sparkperceptron.internal.engine.EpochHistory;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The summary file Spark Connect's model cache uses: a round trip, and damage refused. */
class TrainingSummaryFileTest {
  @TempDir
  Path dir;

  private static PerceptronTrainingSummary summary() {
    long[] updates = {40, 12, 3};
    double[] perceptronLoss = {50.0, 12.5, 6.25};
    double[] hingeLoss = {80.0, 30.0, 10.0};
    List<EpochStats> epochs = new ArrayList<>();
    for (int e = 0; e < 3; e++) {
      EpochStats s = new EpochStats();
      s.examples = 100;
      s.weightSeen = 100.0 - e;
      s.mistakes = updates[e];
      s.updates = updates[e];
      s.perceptronLoss = perceptronLoss[e];
      s.hingeLoss = hingeLoss[e];
      s.nonFiniteMargins = e;
      s.stepSum = 0.5 * e;
      epochs.add(s);
    }
    EpochHistory history = new EpochHistory(epochs,
        new double[] {Double.POSITIVE_INFINITY, 0.25, Double.NaN}, new double[] {0.3, 0.2, 0.1},
        new long[][] {{25, 15}, {7, 5}, {3, 0}}, new double[] {0.9, 0.95, 0.94});
    return new PerceptronTrainingSummary(history, false, 2, StopReason.VALIDATION, 5, 2);
  }

  @Test
  void readsBackEveryHistoryBitForBit() {
    PerceptronTrainingSummary written = summary();
    Path file = dir.resolve("summary");
    TrainingSummaryFile.save(written, file);
    PerceptronTrainingSummary read = TrainingSummaryFile.load(file);

    assertEquals(3, read.totalIterations());
    assertArrayEquals(written.updatesHistory(), read.updatesHistory());
    assertArrayEquals(written.mistakesHistory(), read.mistakesHistory());
    assertArrayEquals(written.examplesHistory(), read.examplesHistory());
    assertArrayEquals(written.objectiveHistory(), read.objectiveHistory());
    assertArrayEquals(written.perceptronLossHistory(), read.perceptronLossHistory());
    assertArrayEquals(written.hingeLossHistory(), read.hingeLossHistory());
    // assertArrayEquals on doubles compares bits through Double.equals: NaN and ∞ included.
    assertArrayEquals(written.weightChangeHistory(), read.weightChangeHistory());
    assertArrayEquals(written.epochSeconds(), read.epochSeconds());
    assertTrue(Arrays.deepEquals(written.workerUpdatesHistory(), read.workerUpdatesHistory()));
    assertArrayEquals(written.validationHistory(), read.validationHistory());
    // The perceptron rule descends the perceptron loss, per unit of the weight seen.
    assertArrayEquals(new double[] {50.0 / 100, 12.5 / 99, 6.25 / 98}, read.objectiveHistory());
    assertEquals(2, read.modelEpoch());
    assertEquals(StopReason.VALIDATION, read.stopReason());
    assertEquals(5, read.numInputPartitions());
    assertEquals(2, read.numWorkers());
  }

  @Test
  void aDamagedOrTruncatedFileIsRefusedWithTheFileNamed() throws IOException {
    Path file = dir.resolve("summary");
    TrainingSummaryFile.save(summary(), file);
    byte[] bytes = Files.readAllBytes(file);

    byte[] flipped = bytes.clone();
    flipped[bytes.length / 2] ^= 0x10;
    Path damaged = dir.resolve("damaged");
    Files.write(damaged, flipped);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TrainingSummaryFile.load(damaged));
    assertTrue(e.getMessage().startsWith("Training summary " + damaged + " is unreadable"),
        e.getMessage());

    Path truncated = dir.resolve("truncated");
    Files.write(truncated, Arrays.copyOf(bytes, bytes.length - 9));
    e = assertThrows(IllegalArgumentException.class, () -> TrainingSummaryFile.load(truncated));
    assertTrue(e.getMessage().contains("truncated"), e.getMessage());
  }
}
