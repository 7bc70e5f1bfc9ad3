package io.github.sparkperceptron.internal.rounds;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which report a barrier stage sends the driver ({@link BarrierEpochTask#reportsEnd}): its end
 * state, an index and w, u and Δ per support coordinate, where that takes no more bytes than
 * every round's mix, an index and w and u per entry. Counted by hand.
 */
class StageReportTest {
  @ParameterizedTest(name = "support {0}, {1} mix entries, averaging {2}, momentum {3}")
  @CsvSource({
      // 100 · (4 + 8 + 8 + 8) = 2,800 bytes of state against 140 · (4 + 8 + 8) = 2,800: equal
      "100, 140, true, true, true",
      "100, 139, true, true, false",
      // without averaging: 100 · (4 + 8 + 8) = 2,000 against 167 · (4 + 8) = 2,004 and 166 · 12
      "100, 167, false, true, true",
      "100, 166, false, true, false",
      // without momentum: 100 · 20 = 2,000 against 100 · 20: the state is never larger
      "100, 100, true, false, true",
      // d = 2^16 binary, 10 epochs of 2 rounds that each touch every coordinate: the state
      "65537, 1310740, true, true, true",
      // a hashed model's 4.17 million coordinates, 2 epochs whose mixes hold 483 entries
      "4172278, 483, true, true, false",
      // the same model's first stage: 4.14 million coordinates, 5.27 million mix entries
      "4141689, 5267926, true, true, false",
  })
  void theStateWhereItIsTheSmallerReport(int support, long mixEntries, boolean averaging,
      boolean momentum, boolean end) {
    assertEquals(end, BarrierEpochTask.reportsEnd(support, mixEntries, averaging, momentum));
  }
}
