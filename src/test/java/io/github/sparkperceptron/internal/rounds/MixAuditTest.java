package io.github.sparkperceptron.internal.rounds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which rounds of a barrier stage the driver audits ({@link MixAudit#draw}). */
class MixAuditTest {

  /**
   * The first epoch always; as many epochs as keep the audited changes (W per audited round)
   * within a quarter of the stage's E·R reported mixes, at least one; each at a round in range.
   * The counts are worked out by hand from that rule.
   */
  @ParameterizedTest(name = "{0} epochs, {1} rounds, {2} workers: {3} audited")
  @CsvSource({
      "30, 2, 2, 8", // 60 mixes: ⌈60 / (4·2)⌉ = 8 rounds of 2 changes
      "10, 2, 2, 3", // 20 mixes: ⌈20 / 8⌉ = 3 rounds
      "4, 4, 4, 1", // 16 mixes: one round of 4 changes, exactly a quarter
      "1, 8, 8, 1", // a one-epoch stage is audited whatever it costs
      "10, 64, 64, 3", // 640 mixes: ⌈640 / 256⌉ = 3 rounds of 64 changes
      "3, 100, 1, 3", // ⌈300 / 4⌉ = 75, at most the 3 epochs
  })
  void theFirstEpochAndAQuarterOfTheReportsAreAudited(int epochs, int rounds, int workers,
      int audited) {
    for (long seed = 0; seed < 50; seed++) {
      int[] draw = MixAudit.draw(epochs, rounds, workers, false, new Random(seed));
      assertEquals(epochs, draw.length);
      assertTrue(draw[0] >= 0, "the stage's first epoch is audited");
      int count = 0;
      for (int r : draw) {
        assertTrue(r >= -1 && r < rounds, "round " + r);
        count += r >= 0 ? 1 : 0;
      }
      assertEquals(audited, count);
    }
  }

  /**
   * A stage that reports only where it ended sends no mix but the audited round's: one epoch is
   * audited, whichever the draw picks.
   */
  @ParameterizedTest(name = "{0} epochs, {1} rounds, {2} workers")
  @CsvSource({"30, 2, 2", "10, 64, 64", "1, 8, 8"})
  void aStageThatReportsItsEndAuditsOneEpoch(int epochs, int rounds, int workers) {
    for (long seed = 0; seed < 50; seed++) {
      int[] draw = MixAudit.draw(epochs, rounds, workers, true, new Random(seed));
      int count = 0;
      for (int r : draw) {
        assertTrue(r >= -1 && r < rounds, "round " + r);
        count += r >= 0 ? 1 : 0;
      }
      assertEquals(1, count);
    }
  }

  /** Over many stages every epoch and every round is drawn: no round escapes the audit. */
  @ParameterizedTest(name = "{0} epochs, {1} rounds, {2} workers, reports its end: {3}")
  @CsvSource({"30, 2, 2, false", "10, 4, 8, false", "30, 2, 2, true", "10, 4, 8, true"})
  void everyEpochAndRoundIsDrawnSometimes(int epochs, int rounds, int workers,
      boolean mayReportEnd) {
    boolean[][] seen = new boolean[epochs][rounds];
    Random random = new Random(7);
    for (int stage = 0; stage < 2_000; stage++) {
      int[] draw = MixAudit.draw(epochs, rounds, workers, mayReportEnd, random);
      for (int e = 0; e < epochs; e++) {
        if (draw[e] >= 0) {
          seen[e][draw[e]] = true;
        }
      }
    }
    for (int e = 0; e < epochs; e++) {
      for (int r = 0; r < rounds; r++) {
        assertTrue(seen[e][r], "epoch " + e + ", round " + r + " never audited");
      }
    }
  }
}
