package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.testing.SparkTestSupport;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The barrier path against the naive simulation on {@code local[8]}: 5 to 8 workers, the tree's
 * uneven shapes (W not a power of two) and its deepest one here (8: three levels), with weights,
 * class weights, a step size, the vote, the PA rules and one round per epoch; and block
 * momentum's restart, which needs eight workers to fire, decided alike by every worker and by
 * the driver's replay ({@link BarrierOracle}).
 */
class BarrierEqualsNaiveSimulationOnEightSlotsTest {
  private static SparkSession spark;

  @BeforeAll
  static void session() {
    spark = SparkTestSupport.restart("local[8]");
  }

  @ParameterizedTest(name = "{0}, {1} workers, {2} rounds, {3}, {4}, {5}")
  @CsvSource({
      "breast_cancer, 8, 8, momentum, average, plain",
      "pendigits,     7, 4, momentum, average, weights",
      "iris,          5, 3, mistakes, average, balanced",
      "breast_cancer, 6, 3, uniform,  none,    step",
      "breast_cancer, 8, 4, momentum, vote,    plain",
      "breast_cancer, 8, 8, momentum, average, pa2",
      "pendigits,     8, 1, mistakes, average, plain",
  })
  void theBarrierPathEqualsTheNaiveSimulation(String data, int workers, int rounds,
      String mixing, String averaging, String variant) {
    BarrierOracle.check(spark, data, workers, rounds, mixing, averaging, variant);
  }

  @ParameterizedTest(name = "{0} classes, seed {1}, {2} workers, {3} rounds: {4} restart(s)")
  @CsvSource({"2, 4, 8, 4, 1", "3, 3, 8, 4, 1"})
  void blockMomentumRestartsOnTheBarrierPathAsInTheSimulation(int k, long seed, int workers,
      int rounds, long restarts) {
    BarrierOracle.checkRestarts(spark, k, seed, workers, rounds, restarts);
  }
}
