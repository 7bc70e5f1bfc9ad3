package io.github.sparkperceptron.bench.jmh;

import io.github.sparkperceptron.internal.mixing.StateDelta;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.JavaSerializer;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import scala.reflect.ClassTag$;

/**
 * What it costs to serialise and deserialise the learner state and the partitions' changes with
 * the serializers Spark can use for task results and broadcasts (issue 10): Spark's
 * JavaSerializer (the default of {@code spark.serializer}), its KryoSerializer without and with
 * registration of {@link StateDelta}, and a raw little-endian {@link ByteBuffer} of the arrays
 * (the floor: what an {@code Externalizable} writing its arrays would cost, framing aside).
 *
 * <p>Payloads: {@code state}, one dense {@code double[]} of 2^22 (K·d = 4 × 2^20, the weights a
 * dense exchange broadcasts); {@code dense-delta}, a dense {@link StateDelta} of 2^22
 * coordinates with δw and δu (what a dense task result carries); {@code sparse-delta}, a sparse
 * one with 2^16 of the 2^22 coordinates changed (what a partition of 100,000 rows × 30
 * non-zeros of a 2^22-feature model returns). The serialised sizes are printed at set-up.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g", "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED"})
public class SerializationBenchmark {
  private static final int LENGTH = 1 << 22;
  private static final int CHANGED = 1 << 16;

  @Param({"state", "dense-delta", "sparse-delta"})
  String payload;

  @Param({"java", "kryo", "kryo-registered", "raw"})
  String codec;

  private Object value;
  private SerializerInstance serializer;
  private ByteBuffer bytes;

  @Setup(Level.Trial)
  public void setUp() {
    Random rnd = new Random(7);
    switch (payload) {
      case "state" -> value = uniforms(rnd, LENGTH);
      case "dense-delta" -> value = StateDelta.dense(uniforms(rnd, LENGTH),
          uniforms(rnd, LENGTH));
      case "sparse-delta" -> {
        int[] idx = rnd.ints(0, LENGTH).distinct().limit(CHANGED).sorted().toArray();
        value = StateDelta.sparse(LENGTH, idx, uniforms(rnd, CHANGED), uniforms(rnd, CHANGED));
      }
      default -> throw new IllegalArgumentException(payload);
    }
    if (codec.startsWith("kryo")) {
      // Does the payload fit Kryo's default buffer (spark.kryoserializer.buffer.max = 64m)?
      try {
        new KryoSerializer(new SparkConf()).newInstance().serialize(value,
            ClassTag$.MODULE$.apply(Object.class));
        System.out.printf("%n%s fits Kryo's default buffer.max%n", payload);
      } catch (Exception e) {
        // KryoSerializer throws SparkException (checked in Java's terms) on a buffer overflow.
        System.out.printf("%n%s with Kryo's default buffer.max: %s%n", payload,
            e.getClass().getSimpleName() + ": " + e.getMessage());
      }
    }
    SparkConf conf = new SparkConf().set("spark.kryoserializer.buffer.max", "1g");
    switch (codec) {
      case "java" -> serializer = new JavaSerializer(conf).newInstance();
      case "kryo" -> serializer = new KryoSerializer(conf).newInstance();
      case "kryo-registered" -> serializer = new KryoSerializer(conf
          .set("spark.kryo.classesToRegister", StateDelta.class.getName())
          .set("spark.kryo.registrationRequired", "true")).newInstance();
      case "raw" -> serializer = null;
      default -> throw new IllegalArgumentException(codec);
    }
    bytes = serialize();
    System.out.printf("%n%s with %s: %,d bytes serialised%n", payload, codec, bytes.remaining());
    Object back = deserialize();
    if (back instanceof StateDelta d && d.storedEntries() != ((StateDelta) value).storedEntries()) {
      throw new IllegalStateException("round trip lost entries");
    }
  }

  @Benchmark
  public ByteBuffer serialize() {
    if (serializer != null) {
      return serializer.serialize(value, ClassTag$.MODULE$.apply(Object.class));
    }
    return value instanceof double[] a ? rawState(a) : rawDelta((StateDelta) value);
  }

  @Benchmark
  public Object deserialize() {
    ByteBuffer in = bytes.duplicate();
    if (serializer != null) {
      return serializer.deserialize(in, ClassTag$.MODULE$.apply(Object.class));
    }
    in.order(ByteOrder.LITTLE_ENDIAN);
    return payload.equals("state") ? readState(in) : readDelta(in);
  }

  /** Values in [-0.5, 0.5): every mantissa bit varies, as in trained weights. */
  private static double[] uniforms(Random rnd, int n) {
    double[] a = new double[n];
    for (int i = 0; i < n; i++) {
      a[i] = rnd.nextDouble() - 0.5;
    }
    return a;
  }

  private static ByteBuffer rawState(double[] a) {
    ByteBuffer b = ByteBuffer.allocate(4 + 8 * a.length).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(a.length);
    b.asDoubleBuffer().put(a);
    return b.position(0).limit(b.capacity());
  }

  private static double[] readState(ByteBuffer in) {
    double[] a = new double[in.getInt()];
    in.asDoubleBuffer().get(a);
    return a;
  }

  /** length, entries, dense flag, [indices], δw, [δu], one array after the other. */
  private static ByteBuffer rawDelta(StateDelta d) {
    int n = d.storedEntries();
    boolean dense = d.isDense();
    boolean avg = d.hasAverage();
    ByteBuffer b = ByteBuffer.allocate(12 + (dense ? 0 : 4 * n) + 8 * n * (avg ? 2 : 1))
        .order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(d.length()).putInt(n).putInt((dense ? 1 : 0) | (avg ? 2 : 0));
    if (!dense) {
      for (int k = 0; k < n; k++) {
        b.putInt(d.coordinate(k));
      }
    }
    for (int k = 0; k < n; k++) {
      b.putDouble(d.weightChange(k));
    }
    if (avg) {
      for (int k = 0; k < n; k++) {
        b.putDouble(d.averageChange(k));
      }
    }
    return b.position(0).limit(b.capacity());
  }

  private static StateDelta readDelta(ByteBuffer in) {
    int length = in.getInt();
    int n = in.getInt();
    int flags = in.getInt();
    int[] idx = null;
    if ((flags & 1) == 0) {
      idx = new int[n];
      in.asIntBuffer().get(idx);
      in.position(in.position() + 4 * n);
    }
    double[] w = new double[n];
    in.asDoubleBuffer().get(w);
    in.position(in.position() + 8 * n);
    double[] u = null;
    if ((flags & 2) != 0) {
      u = new double[n];
      in.asDoubleBuffer().get(u);
    }
    return idx == null ? StateDelta.dense(w, u) : StateDelta.sparse(length, idx, w, u);
  }
}
