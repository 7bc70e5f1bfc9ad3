package io.github.sparkperceptron.testing;

import org.apache.spark.sql.SparkSession;

/**
 * The one local[2] SparkSession the test JVM shares: Surefire runs every test class in one JVM,
 * and starting a session costs seconds. Classes that need another master stop it first.
 */
public final class SparkTestSupport {
  private SparkTestSupport() {
  }

  public static synchronized SparkSession spark() {
    return SparkSession.builder()
        .master("local[2]")
        .appName("spark-perceptron-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "2")
        .getOrCreate();
  }
}
