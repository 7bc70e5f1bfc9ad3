package io.github.sparkperceptron.internal.io;

/**
 * The number syntax of the text readers, shared by LIBSVM and CSV: plain ASCII decimals,
 * {@code [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?}, and whole numbers
 * {@code [+-]? digits}.
 *
 * <p>{@link Double#parseDouble} alone would also take {@code 1d}, {@code 0x1p3} and text wrapped
 * in control characters, and {@link Integer#parseInt} takes non-ASCII digits; a data file that
 * holds such tokens is far more likely damaged than meant, so the readers reject them.
 *
 * <p>Every check has two forms: on a {@link String} (what messages quote) and on a range of a
 * line's bytes (what the readers' fast path reads, without decoding the line). A decimal on bytes
 * is checked and valued in one pass by {@link DecimalReader}, correctly rounded, so it is the same
 * double as {@link Double#parseDouble} gives for the same text ({@code NumberTextTest} checks it
 * on random and hard cases).
 */
final class NumberText {
  private NumberText() {
  }

  /** Whether {@code s} is a decimal number in the syntax above (it may still overflow). */
  static boolean isDecimal(String s) {
    int n = s.length();
    int i = 0;
    if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
      i++;
    }
    int intDigits = 0;
    while (i < n && isDigit(s.charAt(i))) {
      i++;
      intDigits++;
    }
    int fractionDigits = 0;
    if (i < n && s.charAt(i) == '.') {
      i++;
      while (i < n && isDigit(s.charAt(i))) {
        i++;
        fractionDigits++;
      }
    }
    if (intDigits + fractionDigits == 0) {
      return false;
    }
    if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      i++;
      if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
        i++;
      }
      int exponentDigits = 0;
      while (i < n && isDigit(s.charAt(i))) {
        i++;
        exponentDigits++;
      }
      if (exponentDigits == 0) {
        return false;
      }
    }
    return i == n;
  }

  /**
   * {@link #wholeNumber(String)} of bytes {@code [from, to)}: the value clamped to ±(2^31), or
   * {@link Long#MIN_VALUE} when they are not a whole number.
   */
  static long wholeNumber(byte[] b, int from, int to) {
    int i = from;
    boolean negative = false;
    if (i < to && (b[i] == '+' || b[i] == '-')) {
      negative = b[i] == '-';
      i++;
    }
    if (i == to) {
      return Long.MIN_VALUE;
    }
    long value = 0;
    for (; i < to; i++) {
      byte c = b[i];
      if (!isDigit(c)) {
        return Long.MIN_VALUE;
      }
      value = Math.min(value * 10 + (c - '0'), 1L << 31);
    }
    return negative ? -value : value;
  }

  private static boolean isDigit(byte c) {
    return c >= '0' && c <= '9';
  }

  /** Java's spellings of the non-finite values, which deserve a clearer message than "not a number". */
  static boolean isNonFiniteWord(String s) {
    String unsigned = s.startsWith("+") || s.startsWith("-") ? s.substring(1) : s;
    return unsigned.equals("NaN") || unsigned.equals("Infinity");
  }

  /**
   * The value of a whole number {@code [+-]? digits}, clamped to ±(2^31) so that anything outside
   * the int range stays outside it; {@link Long#MIN_VALUE} when {@code s} is not a whole number.
   */
  static long wholeNumber(String s) {
    int n = s.length();
    int i = 0;
    boolean negative = false;
    if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
      negative = s.charAt(i) == '-';
      i++;
    }
    if (i == n) {
      return Long.MIN_VALUE;
    }
    long value = 0;
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (!isDigit(c)) {
        return Long.MIN_VALUE;
      }
      value = Math.min(value * 10 + (c - '0'), 1L << 31);
    }
    return negative ? -value : value;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /**
   * {@code s} cut to 40 characters, with control characters and line separators escaped, so that
   * quoting it keeps an error message on one readable line.
   */
  static String shown(String s) {
    String cut = s.length() <= 40 ? s : s.substring(0, 37) + "...";
    StringBuilder sb = null;
    for (int i = 0; i < cut.length(); i++) {
      char c = cut.charAt(i);
      boolean escape = Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
      if (escape && sb == null) {
        sb = new StringBuilder(cut.substring(0, i));
      }
      if (sb != null) {
        if (escape) {
          sb.append(String.format("\\u%04x", (int) c));
        } else {
          sb.append(c);
        }
      }
    }
    return sb == null ? cut : sb.toString();
  }
}
