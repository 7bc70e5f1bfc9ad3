package io.github.sparkperceptron.ml;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The version of spark-perceptron these classes were built as, exactly as the project's pom
 * names it, a snapshot included ("0.1.0-SNAPSHOT"): what the jobs' {@code --version} prints and
 * what an ONNX export records as its producer version. Spark keeps its own the same way
 * ({@code org.apache.spark.SPARK_VERSION}, from a resource its build writes).
 *
 * <p>The build writes the version into the resource {@code version.properties} beside this class
 * (Maven resource filtering of {@code src/main/resources-filtered}), so it is right wherever the
 * classes are loaded from: the library jar, the job jar, or {@code target/classes} (the tests,
 * the examples' REPLs). A jar's manifest would serve only the first two.
 */
public final class SparkPerceptronVersion {
  /** The version, e.g. {@code 0.1.0-SNAPSHOT}; {@code unknown} for classes built without Maven. */
  public static final String VERSION = read();

  private SparkPerceptronVersion() {
  }

  private static String read() {
    try (InputStream in = SparkPerceptronVersion.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      String v = p.getProperty("version", "").strip();
      // An unfiltered copy (an IDE that copies resources without Maven) still says ${...}.
      return v.isEmpty() || v.startsWith("${") ? "unknown" : v;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read spark-perceptron's version.properties", e);
    }
  }
}
