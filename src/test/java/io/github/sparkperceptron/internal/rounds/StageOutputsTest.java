package io.github.sparkperceptron.internal.rounds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.apache.spark.SparkException;
import org.apache.spark.scheduler.BarrierJobSlotsNumberCheckFailed;
import org.junit.jupiter.api.Test;

/**
 * What {@link StageOutputs#cannotPlace} tells apart: Spark's refusal to place a barrier stage,
 * however wrapped, from every other failure of the stage's job. (The stage's outputs themselves
 * are checked by every barrier test: the model equals the jobs' and the simulation's.)
 */
class StageOutputsTest {
  @Test
  void sparksRefusalToPlaceABarrierStageIsToldApartFromOtherFailures() {
    BarrierJobSlotsNumberCheckFailed slots = new BarrierJobSlotsNumberCheckFailed(4, 2);
    assertEquals(slots.getMessage(), StageOutputs.cannotPlace(slots));
    assertEquals(slots.getMessage(), StageOutputs.cannotPlace(
        new SparkException("Exception thrown in awaitResult: ", slots)));
    assertNull(StageOutputs.cannotPlace(new SparkException("Job aborted due to stage failure")));
    assertNull(StageOutputs.cannotPlace(new IllegalStateException("injected failure")));
  }
}
