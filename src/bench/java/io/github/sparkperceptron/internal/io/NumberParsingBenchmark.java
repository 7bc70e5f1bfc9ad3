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
 * pass over the line's bytes that checks the syntax and computes the value, {@link
 * DecimalReader}; and a whole line through {@link LibSvmParser}) and what they did before (a
 * syntax scan, then FastDoubleParser's Eisel-Lemire parse of the same bytes), with the pieces
 * apart: FastDoubleParser on bytes without the check, on a {@code String}, and
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
  private final DecimalReader reader = new DecimalReader();
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
      if (reader.read(bytes, from[i], to[i]) != to[i] || reader.value() != expected
          || syntaxScan(bytes, from[i], to[i]) != to[i]) {
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
   * What the readers do: one pass that checks the syntax and computes the value
   * ({@link DecimalReader}).
   */
  @Benchmark
  @OperationsPerInvocation(VALUES)
  public double readersOnePass() {
    double sum = 0;
    for (int i = 0; i < VALUES; i++) {
      if (reader.read(bytes, from[i], to[i]) == to[i]) {
        sum += reader.value();
      }
    }
    return sum;
  }

  /**
   * What the readers did before {@link DecimalReader} (issue 32, target 3): a scan of the syntax
   * alone ({@link #syntaxScan}), then FastDoubleParser on the bytes, which scans them again.
   */
  @Benchmark
  @OperationsPerInvocation(VALUES)
  public double syntaxScanThenFastDoubleParser() {
    double sum = 0;
    for (int i = 0; i < VALUES; i++) {
      if (syntaxScan(bytes, from[i], to[i]) == to[i]) {
        sum += JavaDoubleParser.parseDouble(bytes, from[i], to[i] - from[i]);
      }
    }
    return sum;
  }

  /** The readers' former syntax-only scan: {@link DecimalReader#read}'s end, without a value. */
  private static int syntaxScan(byte[] b, int from, int end) {
    int i = from;
    if (i < end && (b[i] == '+' || b[i] == '-')) {
      i++;
    }
    int digits = 0;
    while (i < end && b[i] >= '0' && b[i] <= '9') {
      i++;
      digits++;
    }
    if (i < end && b[i] == '.') {
      i++;
      while (i < end && b[i] >= '0' && b[i] <= '9') {
        i++;
        digits++;
      }
    }
    if (digits == 0) {
      return -1;
    }
    if (i < end && (b[i] == 'e' || b[i] == 'E')) {
      i++;
      if (i < end && (b[i] == '+' || b[i] == '-')) {
        i++;
      }
      int exponentFrom = i;
      while (i < end && b[i] >= '0' && b[i] <= '9') {
        i++;
      }
      if (i == exponentFrom) {
        return -1;
      }
    }
    return i;
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
