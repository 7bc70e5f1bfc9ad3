package io.github.sparkperceptron.internal.io;

import ch.randelshofer.fastdoubleparser.JavaDoubleParser;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.io.Text;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 20: the cost of turning a LIBSVM value into a double, per value, for what a plain loop
 * does ({@link Double#parseDouble} of a {@code String} token) against what the readers do (one
 * scan of the syntax, then FastDoubleParser's Eisel-Lemire parse straight from the line's bytes;
 * and a whole line through {@link LibSvmParser}), with the pieces apart: FastDoubleParser on
 * bytes without the check, on a {@code String}, and
 * {@code Double.parseDouble} of a {@code String} made from the bytes (what a byte reader without
 * FastDoubleParser would pay).
 *
 * <p>Values ({@code -p values=...}): {@code generated}, what {@code submit/generate} writes (Spark's
 * LIBSVM writer prints {@link Double#toString}: up to 17 significant digits, an exponent below
 * 10⁻³), from the generator's scale (normal / √20); {@code short}, 6 significant digits without
 * trailing zeros, as scaled real data sets hold ({@code 0.316667}, {@code -1}). 4,096 values in
 * one byte array as in a line, parsed in turn; the score is per value.
 *
 * <p>In this package (under src/bench) because {@link NumberText} is package-private: the
 * benchmark calls exactly what the readers call. Run: {@code submit/jmh NumberParsingBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
public class NumberParsingBenchmark {
  private static final int VALUES = 4096;

  @Param({"generated", "short"})
  public String values;

  private String[] strings;
  private byte[] bytes;
  private Text line;
  private final LibSvmParser parser = new LibSvmParser();
  private int[] from;
  private int[] to;

  @Setup
  public void setUp() {
    Random random = new Random(20);
    strings = new String[VALUES];
    StringBuilder line = new StringBuilder();
    from = new int[VALUES];
    to = new int[VALUES];
    for (int i = 0; i < VALUES; i++) {
      double x = random.nextGaussian() / Math.sqrt(20);
      strings[i] = values.equals("short")
          ? new BigDecimal(x).round(new MathContext(6)).stripTrailingZeros().toPlainString()
          : Double.toString(x);
      line.append(i + 1).append(':');
      from[i] = line.length();
      line.append(strings[i]);
      to[i] = line.length();
      line.append(' ');
    }
    bytes = line.toString().getBytes(StandardCharsets.US_ASCII);
    this.line = new Text("0 " + line.toString().strip());
    for (int i = 0; i < VALUES; i++) {
      double expected = Double.parseDouble(strings[i]);
      if (!NumberText.isDecimal(bytes, from[i], to[i])
          || NumberText.parseDecimal(bytes, from[i], to[i]) != expected
          || NumberText.scanDecimal(bytes, from[i], to[i]) != to[i]) {
        throw new IllegalStateException("the readers' parse differs on " + strings[i]);
      }
    }
  }

  /** What a plain loop does after {@code String.split}. */
  @Benchmark
  @OperationsPerInvocation(VALUES)
  public double parseDoubleOfString() {
    double sum = 0;
    for (String s : strings) {
      sum += Double.parseDouble(s);
    }
    return sum;
  }

  /**
   * What the readers do: one scan of the token's syntax ({@link NumberText#scanDecimal}), then
   * FastDoubleParser on the bytes.
   */
  @Benchmark
  @OperationsPerInvocation(VALUES)
  public double readersScanAndParseBytes() {
    double sum = 0;
    for (int i = 0; i < VALUES; i++) {
      if (NumberText.scanDecimal(bytes, from[i], to[i]) == to[i]) {
        sum += NumberText.parseDecimal(bytes, from[i], to[i]);
      }
    }
    return sum;
  }

  /**
   * A whole LIBSVM line of the 4,096 pairs, {@code 0 1:v 2:v ...}, through the readers' parser
   * ({@link LibSvmParser#parse(org.apache.hadoop.io.Text)}): indices, syntax and values, per pair.
   */
  @Benchmark
  @OperationsPerInvocation(VALUES)
  public int readersLibSvmLine() {
    String error = parser.parse(line);
    if (error != null) {
      throw new IllegalStateException(error);
    }
    return parser.size();
  }

  /** FastDoubleParser on the bytes alone: the check's share is the difference to the above. */
  @Benchmark
  @OperationsPerInvocation(VALUES)
  public double fastDoubleParserBytes() {
    double sum = 0;
    for (int i = 0; i < VALUES; i++) {
      sum += JavaDoubleParser.parseDouble(bytes, from[i], to[i] - from[i]);
    }
    return sum;
  }

  /** FastDoubleParser on {@code String} tokens: the library in a split-based loop. */
  @Benchmark
  @OperationsPerInvocation(VALUES)
  public double fastDoubleParserString() {
    double sum = 0;
    for (String s : strings) {
      sum += JavaDoubleParser.parseDouble(s);
    }
    return sum;
  }

  /** A byte reader without FastDoubleParser: a String per value, then Double.parseDouble. */
  @Benchmark
  @OperationsPerInvocation(VALUES)
  public double parseDoubleOfBytes() {
    double sum = 0;
    for (int i = 0; i < VALUES; i++) {
      sum += Double.parseDouble(new String(bytes, from[i], to[i] - from[i],
          StandardCharsets.ISO_8859_1));
    }
    return sum;
  }
}
