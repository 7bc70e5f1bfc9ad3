package io.github.sparkperceptron.internal.kernel;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An enum constant that a string param selects by name ({@code updateRule=pa1},
 * {@code averaging=vote}, ...). The enum is the one place a string param's allowed values come
 * from: the param's validator, its doc, the lookup and the error message are all generated from
 * {@code values()}, so adding a constant adds an allowed value everywhere at once.
 *
 * <p>Names are compared case-insensitively, as Spark's own string params are.
 */
public interface ParamValue {

  /** The param value that selects this constant, in lower case. */
  String paramValue();

  /** A short phrase for the param's doc, e.g. "passive-aggressive, step capped at C". */
  String description();

  /**
   * The constant of {@code type} that {@code value} names.
   *
   * @param param the param's name, for the message
   * @throws IllegalArgumentException naming the param, the value and the allowed values
   */
  static <E extends Enum<E> & ParamValue> E parse(Class<E> type, String param, String value) {
    if (value != null) {
      String v = value.toLowerCase(Locale.ROOT);
      for (E e : type.getEnumConstants()) {
        if (e.paramValue().equals(v)) {
          return e;
        }
      }
    }
    throw new IllegalArgumentException(param + " must be one of " + names(type) + ", got "
        + (value == null ? "null" : "'" + value + "'"));
  }

  /** The allowed values, in declaration order. */
  static <E extends Enum<E> & ParamValue> List<String> names(Class<E> type) {
    List<String> names = new ArrayList<>();
    for (E e : type.getEnumConstants()) {
      names.add(e.paramValue());
    }
    return names;
  }

  /** "a (what a does), b (what b does) or c (what c does)", for a param's doc. */
  static <E extends Enum<E> & ParamValue> String describe(Class<E> type) {
    E[] all = type.getEnumConstants();
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < all.length; i++) {
      if (i > 0) {
        sb.append(i == all.length - 1 ? " or " : ", ");
      }
      sb.append(all[i].paramValue()).append(" (").append(all[i].description()).append(')');
    }
    return sb.toString();
  }
}
