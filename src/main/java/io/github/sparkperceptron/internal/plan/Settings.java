package io.github.sparkperceptron.internal.plan;

import java.util.Locale;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.StorageLevel;

/**
 * The Spark configuration keys of the engine, in one table: each reads a local property of the
 * fitting thread first (so a test or a notebook can set it for one fit), then the Spark
 * configuration. A key exists only where a param cannot serve: it changes where and how fast the
 * same arithmetic runs, or it is a seam for tests; none of the product's keys changes a model.
 *
 * <table>
 * <caption>Keys (the README's "Settings" section lists them all)</caption>
 * <tr><th>key</th><th>values</th><th>meaning</th></tr>
 * <tr><td>{@value #CHUNK_BYTES}</td><td>bytes</td><td>test seam: bytes per chunk of cached
 * rows (changes the models of workers beyond a window: windows are whole chunks)</td></tr>
 * <tr><td>{@value #WINDOW_BYTES}</td><td>bytes</td><td>test seam: bytes per window of an epoch
 * (changes the models of workers beyond it)</td></tr>
 * </table>
 */
public final class Settings {
  /** Test seam: bytes per chunk of cached rows. */
  public static final String CHUNK_BYTES = "spark.perceptron.test.chunkBytes";
  /** Test seam: bytes per window of an epoch's visits. */
  public static final String WINDOW_BYTES = "spark.perceptron.test.windowBytes";

  private Settings() {
  }

  /** A key's value for the calling thread: its local property, else the Spark configuration. */
  public static String read(JavaSparkContext jsc, String key, String defaultValue) {
    String local = jsc.getLocalProperty(key);
    return local != null ? local : jsc.getConf().get(key, defaultValue);
  }

  /**
   * {@code value} as a whole number of at least 1.
   *
   * @throws IllegalArgumentException naming the key and the value
   */
  static long positiveLong(String key, String value) {
    try {
      long v = Long.parseLong(value.trim());
      if (v >= 1) {
        return v;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new IllegalArgumentException(key + " must be a whole number >= 1, got '" + value + "'");
  }

  /**
   * The storage level {@code value} names (Spark's names, case-insensitive).
   *
   * @throws IllegalArgumentException naming the setting, the value and the levels
   */
  public static StorageLevel storageLevel(String what, String value) {
    if (value == null) {
      throw new IllegalArgumentException(what + " must name a Spark storage level, got null");
    }
    try {
      StorageLevel level = StorageLevel.fromString(value.trim().toUpperCase(Locale.ROOT));
      if (level.equals(StorageLevel.NONE())) {
        throw new IllegalArgumentException(what + "=NONE would keep nothing");
      }
      return level;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + " must name a Spark storage level (MEMORY_AND_DISK,"
          + " MEMORY_AND_DISK_SER, DISK_ONLY, MEMORY_ONLY, OFF_HEAP, ... and their _2 forms),"
          + " got '" + value + "'");
    }
  }
}
