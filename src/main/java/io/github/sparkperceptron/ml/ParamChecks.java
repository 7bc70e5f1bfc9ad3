package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.internal.kernel.ParamValue;
import io.github.sparkperceptron.internal.plan.Settings;
import java.io.Serializable;
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
    return intAtLeast(param, min, "");
  }

  /** At least {@code min}; {@code note} (may be empty) follows the range in the message. */
  static Function1<Object, Object> intAtLeast(String param, int min, String note) {
    return (Function1<Object, Object> & Serializable) value -> {
      int v = (Integer) value;
      if (v < min) {
        throw new IllegalArgumentException(param + " must be >= " + min
            + (note.isEmpty() ? "" : " (" + note + ")") + ", got " + v);
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

  /** Any number but NaN: ±Infinity are allowed (a threshold that always or never fires). */
  static Function1<Object, Object> notNaN(String param) {
    return (Function1<Object, Object> & Serializable) value -> {
      double v = (Double) value;
      if (Double.isNaN(v)) {
        throw new IllegalArgumentException(param + " must be a number or +/-Infinity, got NaN");
      }
      return Boolean.TRUE;
    };
  }

  /**
   * One of the {@link ParamValue} names of {@code type}, compared case-insensitively as Spark's
   * own string params are; the message lists the allowed values.
   */
  static <E extends Enum<E> & ParamValue> Function1<String, Object> oneOf(String param,
      Class<E> type) {
    return (Function1<String, Object> & Serializable) value -> {
      ParamValue.parse(type, param, value);
      return Boolean.TRUE;
    };
  }

  /**
   * A column name or path that may be left out: any string, where the empty string means "not
   * set", as for Spark's own optional column params (so {@code setWeightCol(getWeightCol())}
   * works on a fresh instance, whose getter answers "").
   */
  /** A Spark storage level's name (see {@code Settings#storageLevel}). */
  static Function1<String, Object> storageLevel(String param) {
    return (Function1<String, Object> & Serializable) value -> {
      Settings.storageLevel(param, value);
      return Boolean.TRUE;
    };
  }

  static Function1<String, Object> optionalName(String param) {
    return (Function1<String, Object> & Serializable) value -> {
      if (value == null) {
        throw new IllegalArgumentException(param + " must not be null; set it to \"\" to unset"
            + " it");
      }
      return Boolean.TRUE;
    };
  }
}
