package io.github.sparkperceptron.onnx;

import com.google.protobuf.UnsafeByteOperations;
import io.github.sparkperceptron.internal.onnx.OnnxProto.AttributeProto;
import io.github.sparkperceptron.internal.onnx.OnnxProto.GraphProto;
import io.github.sparkperceptron.internal.onnx.OnnxProto.NodeProto;
import io.github.sparkperceptron.internal.onnx.OnnxProto.TensorProto;
import io.github.sparkperceptron.internal.onnx.OnnxProto.TensorShapeProto;
import io.github.sparkperceptron.internal.onnx.OnnxProto.TypeProto;
import io.github.sparkperceptron.internal.onnx.OnnxProto.ValueInfoProto;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * A small builder of an ONNX {@code GraphProto} over the generated protobuf classes: constant
 * tensors (initializers), nodes with their attributes, and the graph's typed inputs and outputs.
 * Every node gets a fresh output name unless one is given, so a graph reads as a sequence of
 * expressions. Tensors are stored as {@code raw_data}, little-endian as the format requires,
 * wrapped without a second copy.
 */
final class OnnxGraph {
  private final GraphProto.Builder graph = GraphProto.newBuilder();
  private final Set<String> constants = new HashSet<>();
  private int names;

  OnnxGraph(String name, String docString) {
    graph.setName(name).setDocString(docString);
  }

  /** A constant double tensor of shape {@code dims} holding {@code values} in row-major order. */
  String doubles(String name, double[] values, long... dims) {
    ByteBuffer bytes = ByteBuffer.allocate(Math.multiplyExact(values.length, Double.BYTES))
        .order(ByteOrder.LITTLE_ENDIAN);
    bytes.asDoubleBuffer().put(values);
    return initializer(name, TensorProto.DataType.DOUBLE, bytes.array(), dims);
  }

  /** A scalar double constant named {@code name}, added the first time it is asked for. */
  String doublesOnce(String name, double value) {
    return constants.add(name) ? doubles(name, new double[] {value}) : name;
  }

  /** A constant int64 tensor of shape {@code dims}. */
  String longs(String name, long[] values, long... dims) {
    ByteBuffer bytes = ByteBuffer.allocate(Math.multiplyExact(values.length, Long.BYTES))
        .order(ByteOrder.LITTLE_ENDIAN);
    bytes.asLongBuffer().put(values);
    return initializer(name, TensorProto.DataType.INT64, bytes.array(), dims);
  }

  private String initializer(String name, TensorProto.DataType type, byte[] data, long[] dims) {
    TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(type.getNumber())
        .setRawData(UnsafeByteOperations.unsafeWrap(data));
    for (long d : dims) {
      t.addDims(d);
    }
    graph.addInitializer(t);
    return name;
  }

  /** Adds a node computing {@code op(inputs...)} into a fresh value; returns its name. */
  String node(String op, String[] inputs, AttributeProto... attributes) {
    return nodeNamed(op.toLowerCase(Locale.ROOT) + "_" + (++names), op, inputs,
        attributes);
  }

  /** Adds a node computing {@code op(inputs...)} into the value {@code output}. */
  String nodeNamed(String output, String op, String[] inputs, AttributeProto... attributes) {
    NodeProto.Builder n = NodeProto.newBuilder().setOpType(op).setName(output).addOutput(output);
    for (String in : inputs) {
      n.addInput(in);
    }
    for (AttributeProto a : attributes) {
      n.addAttribute(a);
    }
    graph.addNode(n);
    return output;
  }

  static AttributeProto intAttribute(String name, long value) {
    return AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.INT)
        .setI(value).build();
  }

  static AttributeProto intsAttribute(String name, long... values) {
    AttributeProto.Builder a = AttributeProto.newBuilder().setName(name)
        .setType(AttributeProto.AttributeType.INTS);
    for (long v : values) {
      a.addInts(v);
    }
    return a.build();
  }

  /** A graph input of element type {@code type}; a {@code String} dim is symbolic (e.g. "N"). */
  void input(String name, TensorProto.DataType type, String doc, Object... dims) {
    graph.addInput(valueInfo(name, type, doc, dims));
  }

  /** A graph output; see {@link #input}. */
  void output(String name, TensorProto.DataType type, String doc, Object... dims) {
    graph.addOutput(valueInfo(name, type, doc, dims));
  }

  private static ValueInfoProto valueInfo(String name, TensorProto.DataType type, String doc,
      Object[] dims) {
    TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
    for (Object d : dims) {
      TensorShapeProto.Dimension.Builder dim = TensorShapeProto.Dimension.newBuilder();
      if (d instanceof String symbolic) {
        dim.setDimParam(symbolic);
      } else {
        dim.setDimValue(((Number) d).longValue());
      }
      shape.addDim(dim);
    }
    TypeProto.Tensor tensor = TypeProto.Tensor.newBuilder().setElemType(type.getNumber())
        .setShape(shape).build();
    return ValueInfoProto.newBuilder().setName(name).setDocString(doc)
        .setType(TypeProto.newBuilder().setTensorType(tensor)).build();
  }

  GraphProto build() {
    return graph.build();
  }
}
