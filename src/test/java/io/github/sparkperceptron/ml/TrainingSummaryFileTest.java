package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.StopReason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The summary file Spark Connect's model cache uses: a round trip, and damage refused. */
class TrainingSummaryFileTest {
  @TempDir
  Path dir;

  private static PerceptronTrainingSummary summary() {
    PerceptronTrainingSummary.Numbers n = new PerceptronTrainingSummary.Numbers();
    n.updates = new long[] {40, 12, 3};
    n.mistakes = new long[] {40, 12, 3};
    n.examples = new long[] {100, 100, 100};
    n.objective = new double[] {0.5, 0.125, 0.0625};
    n.perceptronLoss = new double[] {50.0, 12.5, 6.25};
    n.hingeLoss = new double[] {80.0, 30.0, 10.0};
    n.weightChange = new double[] {Double.POSITIVE_INFINITY, 0.25, Double.NaN};
    n.epochSeconds = new double[] {0.3, 0.2, 0.1};
    n.workerUpdates = new long[][] {{25, 15}, {7, 5}, {3, 0}};
    n.validationAccuracy = new double[] {0.9, 0.95, 0.94};
    n.modelEpoch = 2;
    n.stopReason = StopReason.VALIDATION;
    n.numInputPartitions = 5;
    n.numWorkers = 2;
    return new PerceptronTrainingSummary(n);
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
