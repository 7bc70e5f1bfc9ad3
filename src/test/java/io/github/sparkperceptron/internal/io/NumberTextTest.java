package io.github.sparkperceptron.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The byte forms of the number syntax agree with the string forms, and a decimal's value read
 * from bytes ({@link DecimalReader}) is {@link Double#parseDouble}'s, bit for bit: on random
 * decimals of every length and exponent, on the shortest representations of random doubles (what
 * Java and Spark write), on the known hard cases of correct rounding, and on the Eisel-Lemire
 * step alone over its whole table of exponents.
 */
class NumberTextTest {
  private static final Random RND = new Random(20260611L);
  private static final DecimalReader READER = new DecimalReader();

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** {@code s} placed inside other bytes, so that the range arguments are exercised. */
  private static void assertSameAsString(String s) {
    byte[] inner = bytes(s);
    byte[] b = new byte[inner.length + 6];
    b[0] = 'x';
    b[1] = ' ';
    b[2] = '7';
    System.arraycopy(inner, 0, b, 3, inner.length);
    b[b.length - 3] = ':';
    b[b.length - 2] = '9';
    b[b.length - 1] = ' ';
    int from = 3;
    int to = 3 + inner.length;
    boolean decimal = NumberText.isDecimal(s);
    assertEquals(decimal, READER.read(b, from, to) == to, "isDecimal of '" + s + "'");
    assertEquals(NumberText.wholeNumber(s), NumberText.wholeNumber(b, from, to),
        "wholeNumber of '" + s + "'");
    if (decimal) {
      assertEquals(Double.doubleToRawLongBits(Double.parseDouble(s)),
          Double.doubleToRawLongBits(READER.value()), "value of '" + s + "'");
    }
  }

  @Test
  void randomDecimalsParseToTheBitsOfParseDouble() {
    for (int i = 0; i < 200_000; i++) {
      StringBuilder sb = new StringBuilder();
      if (RND.nextInt(4) == 0) {
        sb.append(RND.nextBoolean() ? '-' : '+');
      }
      int intDigits = RND.nextInt(4) == 0 ? 0 : 1 + RND.nextInt(RND.nextBoolean() ? 3 : 25);
      for (int k = 0; k < intDigits; k++) {
        sb.append((char) ('0' + RND.nextInt(10)));
      }
      if (intDigits == 0 || RND.nextBoolean()) {
        sb.append('.');
        int fraction = (intDigits == 0 ? 1 : 0) + RND.nextInt(RND.nextBoolean() ? 6 : 30);
        for (int k = 0; k < fraction; k++) {
          sb.append((char) ('0' + RND.nextInt(10)));
        }
      }
      if (RND.nextInt(3) == 0) {
        sb.append(RND.nextBoolean() ? 'e' : 'E');
        if (RND.nextBoolean()) {
          sb.append(RND.nextBoolean() ? '-' : '+');
        }
        sb.append(RND.nextInt(RND.nextBoolean() ? 30 : 400));
      }
      assertSameAsString(sb.toString());
    }
  }

  @Test
  void theShortestRepresentationsOfRandomDoublesRoundTrip() {
    for (int i = 0; i < 200_000; i++) {
      double x = switch (i % 4) {
        case 0 -> RND.nextDouble();
        case 1 -> RND.nextGaussian() * 1e3;
        case 2 -> Double.longBitsToDouble(RND.nextLong() & 0x7FEFFFFFFFFFFFFFL);
        default -> RND.nextFloat();
      };
      String s = Double.toString(x);
      assertSameAsString(s);
      assertSameAsString(String.format(Locale.ROOT, "%.6g", x));
    }
  }

  /**
   * The Eisel-Lemire step on its own, for significands of 1 to 19 digits (and near 2^64) times
   * every power of ten of its table and beyond: each value it decides is the bits of
   * {@code Double.parseDouble}; and it decides nearly all of them (the rest go to
   * FastDoubleParser, which the other tests cover), so the readers do take the one-pass path.
   */
  @Test
  void eiselLemireDecidesNearlyEveryValueAndDecidesItCorrectly() {
    int decided = 0;
    int tried = 0;
    for (int q = -360; q <= 330; q++) {
      for (int k = 0; k < 300; k++) {
        int digits = 1 + RND.nextInt(19);
        long significand;
        if (k < 4) {
          significand = Long.parseUnsignedLong("9999999999999999999") - k; // 19 digits, unsigned
        } else if (k < 8) {
          significand = Long.MIN_VALUE + RND.nextInt(1000); // just above 2^63, unsigned
        } else {
          significand = 1 + Math.floorMod(RND.nextLong(), (long) Math.pow(10, digits) - 1);
        }
        String text = Long.toUnsignedString(significand) + "e" + q;
        long bits = DecimalReader.eiselLemire(significand, q);
        tried++;
        if (bits != -1) {
          decided++;
          assertEquals(Double.doubleToRawLongBits(Double.parseDouble(text)), bits, text);
        }
      }
    }
    // Undecided: the subnormal range (about 17 of the 691 exponents) and rare rounding cases.
    assertTrue(decided > 0.95 * tried, decided + " of " + tried + " decided");
  }

  @Test
  void hardCasesAndTheSyntaxBordersAgree() {
    List<String> cases = List.of("0", "-0", "+0.0", "0.", ".5", "5.", ".", "-.", "+", "", "e5",
        "1e", "1e+", "1e-5", "1E5", "1d", "1f", "0x1p3", "NaN", "Infinity", "-Infinity",
        "1e309", "-1e400", "1e-400", "4.9e-324", "2.4703282292062327e-324",
        "2.4703282292062328e-324", "2.2250738585072011e-308", "2.2250738585072012e-308",
        "1.7976931348623157e308", "1.7976931348623158e308", "9007199254740993",
        "9007199254740992.5", "0.1", "0.30000000000000004", "123456789012345678901234567890",
        "1_000", "1,5", " 1", "1 ", "١", "12a", "--1", "+-1", "2147483648", "-2147483649",
        "99999999999999999999", "00012", "7.0e0000000000000000000000001",
        "0." + "0".repeat(2_000_000) + "1e2000000", "1e1048576", "1e-1048576", "0e999999999",
        "9007199254740993e0", "9007199254740995", "18446744073709551615", "1844674407370955161.5",
        "4.4501477170144023e-308", "2.2250738585072014e-308", "1e23", "8.98846567431158e307",
        "1.00000000000000011102230246251565404236316680908203125", "0.000001", "-0.0e5");
    for (String c : cases) {
      assertSameAsString(c);
    }
  }
}
