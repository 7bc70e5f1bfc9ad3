package io.github.sparkperceptron.internal.io;

import ch.randelshofer.fastdoubleparser.JavaDoubleParser;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigInteger;
import java.nio.ByteOrder;

/**
 * Reads a decimal of {@link NumberText}'s syntax from a line's bytes in one pass: the scan that
 * checks the syntax and finds the token's end also gathers the significand's digits and the
 * decimal exponent, and the double is computed from those two integers, correctly rounded, so it
 * is bit for bit what {@link Double#parseDouble} gives for the same text.
 *
 * <p>The value comes from the first of three methods that can decide it:
 * <ol>
 *   <li>Clinger's fast path (Clinger 1990, "How to read floating point numbers accurately"): a
 *       significand of at most 2^53 and a power of ten of at most 10^22 are both exact doubles,
 *       so one correctly rounded multiplication or division gives the answer (short decimals such
 *       as {@code 0.316667} or {@code 47});
 *   <li>the Eisel-Lemire algorithm (Lemire 2021, "Number parsing at a gigabyte per second",
 *       Software: Practice and Experience 51(8), section 5): the significand (up to 19 digits)
 *       times a 128-bit truncation of 5^q, from which the 53 bits and the binary exponent are
 *       read off, unless the truncation leaves the rounding undecided (the paper's two tests) or
 *       the result is subnormal; Java's shortest representations (up to 17 digits, what Spark
 *       and {@code submit/generate} write) are decided here;
 *   <li>FastDoubleParser (Randelshofer; also correctly rounded) on the token's bytes, for the
 *       rest: more than 19 significant digits, the undecided and the subnormal cases.
 * </ol>
 * Before this reader the readers scanned a token's syntax and then let FastDoubleParser scan it
 * again; BENCHMARKS.md (issue 32, target 3) measures the two side by side.
 *
 * <p>One reader per parser, reused for every token: {@link #read} returns where the decimal
 * ends and leaves its value in {@link #value()}, so reading allocates nothing.
 */
final class DecimalReader {
  /** The decimal exponents of the 5^q table: outside it a 19-digit significand is 0 or ∞. */
  private static final int MIN_EXPONENT = -342;
  private static final int MAX_EXPONENT = 308;
  /** The high and low 64 bits of 5^q normalised to [2^127, 2^128), q = index + MIN_EXPONENT. */
  private static final long[] POW5_HIGH = new long[MAX_EXPONENT - MIN_EXPONENT + 1];
  private static final long[] POW5_LOW = new long[MAX_EXPONENT - MIN_EXPONENT + 1];
  /** The powers of ten that are exact doubles: 10^0 ... 10^22. */
  private static final double[] EXACT_POW10 = new double[23];
  private static final long INFINITY_BITS = 0x7FF0000000000000L;
  private static final long UNDECIDED = -1;
  private static final VarHandle LONG_LITTLE_ENDIAN =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  /** Where the scan stops accumulating an exponent's digits. */
  private static final int MAX_EXPONENT_DIGITS_VALUE = 1 << 20;

  static {
    // Lemire's table (section 5): 5^q truncated to its top 128 bits for q >= 0; for q < 0 the
    // reciprocal 2^b / 5^-q plus one, so that the table never underestimates it, at 128 bits.
    BigInteger five = BigInteger.valueOf(5);
    for (int q = MIN_EXPONENT; q <= MAX_EXPONENT; q++) {
      BigInteger t;
      if (q >= 0) {
        BigInteger p = five.pow(q);
        int shift = p.bitLength() - 128;
        t = shift > 0 ? p.shiftRight(shift) : p.shiftLeft(-shift);
      } else {
        BigInteger p = five.pow(-q);
        int z = p.bitLength();
        int b = q >= -27 ? z + 127 : 2 * z + 128;
        t = BigInteger.ONE.shiftLeft(b).divide(p).add(BigInteger.ONE);
        if (t.bitLength() > 128) {
          t = t.shiftRight(t.bitLength() - 128);
        }
      }
      POW5_HIGH[q - MIN_EXPONENT] = t.shiftRight(64).longValue();
      POW5_LOW[q - MIN_EXPONENT] = t.longValue();
    }
    double p = 1;
    for (int i = 0; i < EXACT_POW10.length; i++) {
      EXACT_POW10[i] = p;
      p *= 10;
    }
  }

  private double value;
  /** The significand {@link #digits} accumulates into (a field: the method returns the end). */
  private long accumulated;

  /** The value of the decimal that the last successful {@link #read} found. */
  double value() {
    return value;
  }

  /**
   * Scans the decimal that starts at byte {@code from} of {@code b}: the end of the longest prefix
   * of {@code [from, end)} in {@link NumberText}'s syntax, or −1 when no prefix is a decimal (no
   * digit, or an exponent marker without digits). When the scan ends where the token does, the
   * token is a decimal and {@link #value()} is its double (±Infinity when it overflows).
   */
  int read(byte[] b, int from, int end) {
    int i = from;
    boolean negative = false;
    if (i < end && (b[i] == '+' || b[i] == '-')) {
      negative = b[i] == '-';
      i++;
    }
    // The significand's digits from the first non-zero one (wrapping past 19 digits, when the
    // count sends the value to FastDoubleParser), and how many digits follow the point.
    int intFrom = i;
    while (i < end && b[i] == '0') {
      i++;
    }
    int significantFrom = i;
    accumulated = 0;
    i = digits(b, i, end);
    long significand = accumulated;
    int significantDigits = i - significantFrom;
    int digitCount = i - intFrom;
    int fractionDigits = 0;
    if (i < end && b[i] == '.') {
      i++;
      int fractionFrom = i;
      if (significantDigits == 0) {
        while (i < end && b[i] == '0') {
          i++;
        }
      }
      significantFrom = i;
      accumulated = significand;
      i = digits(b, i, end);
      significand = accumulated;
      significantDigits += i - significantFrom;
      fractionDigits = i - fractionFrom;
      digitCount += fractionDigits;
    }
    if (digitCount == 0) {
      return -1;
    }
    int exponent = 0;
    if (i < end && (b[i] == 'e' || b[i] == 'E')) {
      i++;
      boolean negativeExponent = false;
      if (i < end && (b[i] == '+' || b[i] == '-')) {
        negativeExponent = b[i] == '-';
        i++;
      }
      int exponentFrom = i;
      int digit;
      while (i < end && (digit = b[i] - '0') >= 0 && digit <= 9) {
        // Clamped far outside any double's range, so that a long exponent cannot wrap; a
        // clamped one goes to FastDoubleParser with the token.
        exponent = Math.min(exponent * 10 + digit, MAX_EXPONENT_DIGITS_VALUE);
        i++;
      }
      if (i == exponentFrom) {
        return -1;
      }
      if (negativeExponent) {
        exponent = -exponent;
      }
    }
    if (significantDigits == 0) {
      value = negative ? -0.0 : 0.0;
    } else if (significantDigits > 19 || exponent == -MAX_EXPONENT_DIGITS_VALUE
        || exponent == MAX_EXPONENT_DIGITS_VALUE) {
      value = JavaDoubleParser.parseDouble(b, from, i - from);
    } else {
      value = valueOf(negative, significand, exponent - fractionDigits, b, from, i);
    }
    return i;
  }

  /**
   * Reads the digits from byte {@code i} on into {@link #accumulated} (times ten per digit, plus
   * the digit; it wraps past 19 digits, which the caller counts) and returns where they end.
   * Eight digits at a time where eight bytes are left: one little-endian load, a test that all
   * eight are ASCII digits, and their value in three multiplications (the SWAR method of
   * Lemire's fast_float and of simdjson, "SIMD within a register").
   */
  private int digits(byte[] b, int i, int end) {
    long significand = accumulated;
    while (end - i >= 8) {
      long chunk = (long) LONG_LITTLE_ENDIAN.get(b, i);
      // Each byte is a digit when its high nibble is 3 and adding 6 does not carry into it.
      if (((chunk & 0xF0F0F0F0F0F0F0F0L)
          | (((chunk + 0x0606060606060606L) & 0xF0F0F0F0F0F0F0F0L) >>> 4))
          != 0x3333333333333333L) {
        break;
      }
      significand = significand * 100_000_000L + eightDigits(chunk - 0x3030303030303030L);
      i += 8;
    }
    int digit;
    while (i < end && (digit = b[i] - '0') >= 0 && digit <= 9) {
      significand = significand * 10 + digit;
      i++;
    }
    accumulated = significand;
    return i;
  }

  /**
   * The value of eight digits 0..9 held one per byte, the first digit in the lowest byte: pairs,
   * then fours, then the eight, each step a multiply that forms 10·high + low side by side.
   */
  private static long eightDigits(long digitBytes) {
    long pairs = digitBytes * 10 + (digitBytes >>> 8); // bytes 0, 2, 4, 6: the 4 pairs
    long pairMask = 0x000000FF000000FFL;
    return ((pairs & pairMask) * (100 + (1_000_000L << 32))
        + ((pairs >>> 16) & pairMask) * (1 + (10_000L << 32))) >>> 32;
  }

  /** ±significand·10^q, the significand non-zero and of at most 19 digits (unsigned). */
  private static double valueOf(boolean negative, long significand, int q, byte[] b, int from,
      int to) {
    if (q >= -22 && q <= 22 && significand >= 0 && significand <= 1L << 53) {
      double exact = q >= 0 ? significand * EXACT_POW10[q] : significand / EXACT_POW10[-q];
      return negative ? -exact : exact;
    }
    long bits = eiselLemire(significand, q);
    if (bits == UNDECIDED) {
      return JavaDoubleParser.parseDouble(b, from, to - from);
    }
    return Double.longBitsToDouble(negative ? bits | Long.MIN_VALUE : bits);
  }

  /**
   * The bits of the positive double nearest to significand·10^q (ties to even), or
   * {@link #UNDECIDED}; the significand is non-zero, read as unsigned. Lemire (2021), section 5,
   * with 54 bits of the product kept for the 53 of a double and its rounding bit.
   */
  static long eiselLemire(long significand, int q) {
    if (q < MIN_EXPONENT) {
      return 0L; // below 10^19 · 10^-343, under half the smallest subnormal
    }
    if (q > MAX_EXPONENT) {
      return INFINITY_BITS;
    }
    int leadingZeros = Long.numberOfLeadingZeros(significand);
    long w = significand << leadingZeros;
    int index = q - MIN_EXPONENT;
    long high = unsignedMultiplyHigh(w, POW5_HIGH[index]);
    long low = w * POW5_HIGH[index];
    // The 9 bits below the 54 kept are all ones: the truncated table's error might carry into
    // them, so the low half of 5^q joins the product.
    if ((high & 0x1FF) == 0x1FF) {
      long lowProductHigh = unsignedMultiplyHigh(w, POW5_LOW[index]);
      long merged = low + lowProductHigh;
      if (Long.compareUnsigned(merged, low) < 0) {
        high++;
      }
      low = merged;
      // Still all ones: the product's error bound cannot decide the rounding (the paper proves
      // this cannot happen for 10^-27 ... 10^55).
      if ((high & 0x1FF) == 0x1FF && low == -1L && (q < -27 || q > 55)) {
        return UNDECIDED;
      }
    }
    int upperBit = (int) (high >>> 63);
    long mantissa = high >>> (upperBit + 9);
    // floor(q·log2(10)) = (217706·q) >> 16 on this range of q (the paper's approximation).
    int biasedExponent = (int) ((217706L * q) >> 16) + 63 + upperBit - leadingZeros + 1023;
    if (biasedExponent <= 0) {
      return UNDECIDED; // subnormal: rare in data, left to the general parser
    }
    // A product that may be exact with the rounding bit set and an even last bit is a possible
    // tie, which rounds to even, not up; possible only for 10^-4 ... 10^23 (the paper).
    if (Long.compareUnsigned(low, 1) <= 0 && q >= -4 && q <= 23 && (mantissa & 3) == 1) {
      return UNDECIDED;
    }
    mantissa += mantissa & 1;
    mantissa >>>= 1;
    if (mantissa >= 1L << 53) {
      mantissa = 1L << 52;
      biasedExponent++;
    }
    if (biasedExponent >= 0x7FF) {
      return INFINITY_BITS;
    }
    return (mantissa & ~(1L << 52)) | ((long) biasedExponent << 52);
  }

  /** The high 64 bits of the unsigned 128-bit product a·b. */
  private static long unsignedMultiplyHigh(long a, long b) {
    return Math.multiplyHigh(a, b) + ((a >> 63) & b) + ((b >> 63) & a);
  }
}
