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

  static String write(ObjectNode node) {
    try {
      return MAPPER.writeValueAsString(node) + "\n";
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
