package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.testing.SparkTestSupport;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The barrier path against the naive simulation on {@code local[4]}: four task slots, so that
 * up to four workers run in one barrier stage (on {@code local[2]}, where most oracle tests run,
 * more than two workers fall back to a job per round). Every case the simulation knows: 2, 3 and
 * 10 classes, sample and class weights, another step size, every update rule, the vote with
 * shuffling, the chunked order, no intercept, a warm start; every mixing mode; 2, 3 and 4
 * workers ({@link BarrierOracle}; more workers: {@link BarrierEqualsNaiveSimulationOnEightSlotsTest}).
 */
class BarrierEqualsNaiveSimulationTest {
  private static SparkSession spark;

  @BeforeAll
  static void session() {
    spark = SparkTestSupport.restart("local[4]");
  }

  @ParameterizedTest(name = "{0}, {1} workers, {2} rounds, {3}, {4}, {5}")
  @CsvSource({
      "breast_cancer, 4, 3, mistakes, average, plain",
      "breast_cancer, 2, 3, uniform,  none,    plain",
      "breast_cancer, 3, 4, momentum, average, plain",
      "iris,          4, 3, momentum, average, plain",
      "pendigits,     4, 4, momentum, average, plain",
      "pendigits,     3, 3, mistakes, none,    weights",
      "breast_cancer, 4, 3, momentum, average, balanced",
      "iris,          4, 4, momentum, average, step",
      "breast_cancer, 4, 4, momentum, average, pa",
      "breast_cancer, 4, 3, momentum, none,    pa1",
      "iris,          3, 3, mistakes, average, pa2",
      "breast_cancer, 4, 3, momentum, vote,    plain",
      "iris,          4, 3, mistakes, vote,    plain",
      "chunky,        4, 4, momentum, average, chunks",
      "breast_cancer, 4, 4, momentum, none,    no-intercept",
      "iris,          4, 4, momentum, average, warm",
  })
  void theBarrierPathEqualsTheNaiveSimulation(String data, int workers, int rounds,
      String mixing, String averaging, String variant) {
    BarrierOracle.check(spark, data, workers, rounds, mixing, averaging, variant);
  }
}
