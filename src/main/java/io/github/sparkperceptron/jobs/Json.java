package io.github.sparkperceptron.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;

/** JSON output through the Jackson that Spark ships; non-finite numbers become null. */
final class Json {
  static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT);

  private Json() {
  }

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  static void putNumber(ObjectNode node, String field, double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      node.putNull(field);
    } else {
      node.put(field, value);
    }
  }

  /**
   * Puts a param's value as its JSON type: integers and longs as integers, doubles as numbers
   * (non-finite ones as null), booleans as booleans, anything else as text.
   */
  static void putValue(ObjectNode node, String field, Object value) {
    if (value instanceof Integer || value instanceof Long) {
      node.put(field, ((Number) value).longValue());
    } else if (value instanceof Number) {
      putNumber(node, field, ((Number) value).doubleValue());
    } else if (value instanceof Boolean) {
      node.put(field, (Boolean) value);
    } else {
      node.put(field, String.valueOf(value));
    }
  }

  static String write(ObjectNode node) {
    try {
      return MAPPER.writeValueAsString(node) + "\n";
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
