package io.github.sparkperceptron.ml;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Locale;
import scala.Function1;

/**
 * Param validators that throw an {@link IllegalArgumentException} naming the param, the value
 * and what is allowed. Spark calls a validator on every {@code set}, {@code setDefault} and
 * {@code ParamMap} use; its own failure message ("given invalid value") says neither the range
 * nor the fix, so ours throw before Spark has to.
 */
final class ParamChecks {
  private ParamChecks() {
  }

  static Function1<Object, Object> intAtLeast(String param, int min) {
    return (Function1<Object, Object> & Serializable) value -> {
      int v = (Integer) value;
      if (v < min) {
        throw new IllegalArgumentException(param + " must be >= " + min + ", got " + v);
      }
      return Boolean.TRUE;
    };
  }

  /** At least {@code min}, or −1 for "off" (Spark's convention for checkpointInterval). */
  static Function1<Object, Object> intAtLeastOrDisabled(String param, int min) {
    return (Function1<Object, Object> & Serializable) value -> {
      int v = (Integer) value;
      if (v < min && v != -1) {
        throw new IllegalArgumentException(param + " must be >= " + min + " or -1 (off), got "
            + v);
      }
      return Boolean.TRUE;
    };
  }

  /** Finite and strictly positive. */
  static Function1<Object, Object> positive(String param) {
    return (Function1<Object, Object> & Serializable) value -> {
      double v = (Double) value;
      if (!(v > 0) || Double.isInfinite(v)) {
        throw new IllegalArgumentException(param + " must be a finite number > 0, got " + v);
      }
      return Boolean.TRUE;
    };
  }

  /** Finite and ≥ 0. */
  static Function1<Object, Object> nonNegative(String param) {
    return (Function1<Object, Object> & Serializable) value -> {
      double v = (Double) value;
      if (!(v >= 0) || Double.isInfinite(v)) {
        throw new IllegalArgumentException(param + " must be a finite number >= 0, got " + v);
      }
      return Boolean.TRUE;
    };
  }

  static Function1<Object, Object> finite(String param) {
    return (Function1<Object, Object> & Serializable) value -> {
      double v = (Double) value;
      if (Double.isNaN(v) || Double.isInfinite(v)) {
        throw new IllegalArgumentException(param + " must be a finite number, got " + v);
      }
      return Boolean.TRUE;
    };
  }

  /** One of {@code allowed}, compared case-insensitively as Spark's own string params are. */
  static Function1<String, Object> oneOf(String param, String... allowed) {
    return (Function1<String, Object> & Serializable) value -> {
      if (value == null || !Arrays.asList(allowed).contains(value.toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException(param + " must be one of " + Arrays.toString(allowed)
            + ", got '" + value + "'");
      }
      return Boolean.TRUE;
    };
  }

  /** A non-empty name (of a column or a path). */
  static Function1<String, Object> columnName(String param) {
    return (Function1<String, Object> & Serializable) value -> {
      if (value == null || value.isEmpty()) {
        throw new IllegalArgumentException(param + " must not be empty, got '" + value + "'");
      }
      return Boolean.TRUE;
    };
  }
}
