package io.github.sparkperceptron.internal.rounds;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Where the barrier stage's tasks go ({@link BarrierPlacement#assign}): each worker to an
 * executor caching its block while it has a free slot, the rest to the executors with the most
 * slots left, so that all tasks can launch in one round of offers. Cases worked by hand.
 */
class BarrierPlacementTest {
  private static Map<String, Integer> slots(Object... idAndSlots) {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (int i = 0; i < idAndSlots.length; i += 2) {
      out.put((String) idAndSlots[i], (Integer) idAndSlots[i + 1]);
    }
    return out;
  }

  private static String[] at(String... executors) {
    return executors;
  }

  @Test
  void blocksSpreadOverTheExecutorsStayWhereTheyAre() {
    assertArrayEquals(new String[] {"1", "0"},
        BarrierPlacement.assign(List.of(at("1"), at("0")), slots("0", 1, "1", 1)));
  }

  @Test
  void aSecondBlockOnAFullExecutorGoesToTheExecutorWithASlotLeft() {
    assertArrayEquals(new String[] {"0", "1"},
        BarrierPlacement.assign(List.of(at("0"), at("0")), slots("0", 1, "1", 1)));
    // Three blocks on executor 0 of 2 slots, executors 1 (1 slot) and 2 (2 slots) empty: the
    // third worker goes to the executor with the most slots left.
    assertArrayEquals(new String[] {"0", "0", "2"},
        BarrierPlacement.assign(List.of(at("0"), at("0"), at("0")),
            slots("0", 2, "1", 1, "2", 2)));
  }

  @Test
  void anExecutorWithSlotsForAllItsBlocksKeepsThemAll() {
    assertArrayEquals(new String[] {"0", "0"},
        BarrierPlacement.assign(List.of(at("0"), at("0")), slots("0", 2, "1", 1)));
  }

  @Test
  void aLostBlockOrAGoneExecutorTakesAFreeSlot() {
    // Worker 0's block is cached nowhere, worker 1's on an executor no longer listed: after
    // worker 2 keeps its executor, both go where the most slots are left (executor 1, 2 slots;
    // then executors 1 and 2 tie at 1 and the first listed wins).
    assertArrayEquals(new String[] {"1", "1", "0"},
        BarrierPlacement.assign(List.of(at(), at("9"), at("0")),
            slots("0", 1, "1", 2, "2", 1)));
  }

  @Test
  void withoutExecutorsOrSlotsNothingIsPreferred() {
    assertArrayEquals(new String[] {null, null},
        BarrierPlacement.assign(List.of(at("0"), at("1")), slots()));
    assertArrayEquals(new String[] {"0", null},
        BarrierPlacement.assign(List.of(at("0"), at("0")), slots("0", 1)));
  }
}
