package io.github.sparkperceptron.onnx;

import io.github.sparkperceptron.internal.calibration.Calibrator;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.internal.onnx.OnnxProto.ModelProto;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.SparkPerceptronVersion;
import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.ml.linalg.Matrix;

/**
 * A trained {@link PerceptronClassificationModel} as an ONNX model, for serving it outside Spark
 * (ONNX Runtime in Java, Python, C#, C++, JavaScript...). The graph ({@link PerceptronGraphs})
 * takes one input, {@code features}, a dense double tensor [N, d], and gives {@code prediction}
 * (double [N], the class index as Spark gives it, threshold included), {@code rawPrediction}
 * (double [N, K''], exactly what Spark's rawPrediction holds: [−m, m] for binary models, the K
 * scores otherwise) and {@code probability} (double [N, K''], Spark's probability column: the
 * model's calibrator, {@link ProbabilityGraph}), built from standard operators at opset
 * {@value #OPSET}. Every model exports:
 * binary and multiclass, every update rule, averaging none, average and vote.
 *
 * <p><b>Size limit.</b> An ONNX model is one protobuf message, and protobuf limits a message to
 * 2 GiB ({@value #MAX_MODEL_BYTES} bytes); the weights are stored as 8-byte doubles. A linear
 * model holds 8·K'·(d+1) bytes (K' = 1 for binary models, else K): binary models up to about
 * d = 268 million features fit, K = 100 classes up to about d = 2.6 million. A voted model holds
 * its start vectors and every update as a dense row (8·d bytes each), so a vote over wide data
 * reaches the limit much sooner. Above the limit {@link #checkExportable} (and every writer) refuses
 * with a message; use fewer features ({@code FeatureHasher}, {@code HashingTF}) or, for a vote,
 * {@code averaging=average}. Scoring needs the input as a dense [N, d] tensor: 8·d bytes per row.
 *
 * <p>From Spark: {@code model.write().format("onnx").save(dir)} writes {@code dir/model.onnx}
 * ({@link OnnxFormat}); the command line: {@code submit/export}.
 */
public final class OnnxExport {
  /** The ONNX operator set the graphs use. */
  public static final int OPSET = PerceptronGraphs.OPSET;
  /** The largest model protobuf can hold: 2 GiB − 1 byte. */
  public static final long MAX_MODEL_BYTES = Integer.MAX_VALUE;
  /** The graph's structure, names and metadata: well under this, next to the weights. */
  private static final long STRUCTURE_BYTES = 64 * 1024;

  private OnnxExport() {
  }

  /** The size of the exported model, from its shape alone (within 64 KiB above). */
  public static long estimatedBytes(PerceptronClassificationModel model) {
    long values;
    VotedPerceptron vote = EngineBridge.vote(model);
    if (vote != null) {
      values = VoteLayout.values(vote);
    } else {
      long rows = model.numClasses() == 2 ? 1 : model.numClasses();
      values = rows * (model.numFeatures() + 1L);
    }
    return 8 * (values + ProbabilityGraph.values(EngineBridge.calibrator(model)))
        + STRUCTURE_BYTES;
  }

  /**
   * Checks that the model fits in one ONNX file, before anything of its size is allocated.
   *
   * @throws IllegalArgumentException naming the size, the limit and what to do, when it does not
   */
  public static void checkExportable(PerceptronClassificationModel model) {
    long bytes = estimatedBytes(model);
    if (bytes <= MAX_MODEL_BYTES) {
      return;
    }
    String shape = model.numClasses() + " classes, " + model.numFeatures() + " features";
    VotedPerceptron vote = EngineBridge.vote(model);
    if (vote != null) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "Cannot export this voted"
          + " model (%s, %d voting vectors) to ONNX: as dense tensors its vote takes %,d bytes,"
          + " above the %,d bytes a protobuf message (an ONNX file) can hold; export a model"
          + " trained with averaging=average, or with fewer features", shape,
          vote.numSegments() + vote.updateRaised().length, bytes,
          MAX_MODEL_BYTES));
    }
    throw new IllegalArgumentException(String.format(Locale.ROOT, "Cannot export this model (%s)"
        + " to ONNX: its weights take %,d bytes as doubles, above the %,d bytes a protobuf"
        + " message (an ONNX file) can hold; train on fewer features (FeatureHasher or HashingTF"
        + " with a smaller numFeatures) or fewer classes", shape, bytes, MAX_MODEL_BYTES));
  }

  /** The model's ONNX graph, as a protobuf message. */
  static ModelProto toProto(PerceptronClassificationModel model) {
    checkExportable(model);
    PerceptronGraphs.Description about = describe(model);
    double threshold = model.getThreshold();
    VotedPerceptron vote = EngineBridge.vote(model);
    if (vote != null) {
      return PerceptronGraphs.voted(about, vote, threshold);
    }
    Matrix w = model.coefficientMatrix();
    // Spark's matrices are column-major: the K' × d matrix's values are W = d × K', row-major.
    return PerceptronGraphs.linear(about, model.numClasses(), model.numFeatures(), w.toArray(),
        model.interceptVector().toArray(), threshold);
  }

  /**
   * Writes the model's ONNX file to {@code out} (not closed).
   *
   * @throws IllegalArgumentException when the model is too large for one ONNX file
   */
  public static void write(PerceptronClassificationModel model, OutputStream out)
      throws IOException {
    toProto(model).writeTo(out);
  }

  /**
   * The model's ONNX file as bytes, e.g. for {@code OrtEnvironment.createSession(byte[])}.
   *
   * @throws IllegalArgumentException when the model is too large for one ONNX file
   */
  public static byte[] toBytes(PerceptronClassificationModel model) {
    return toProto(model).toByteArray();
  }

  private static PerceptronGraphs.Description describe(PerceptronClassificationModel model) {
    Calibrator calibrator = EngineBridge.calibrator(model);
    Map<String, String> meta = new LinkedHashMap<>();
    meta.put("uid", model.uid());
    meta.put("numClasses", Integer.toString(model.numClasses()));
    meta.put("numFeatures", Integer.toString(model.numFeatures()));
    meta.put("averaging", model.getAveraging());
    meta.put("updateRule", model.getUpdateRule());
    meta.put("fitIntercept", Boolean.toString(model.getFitIntercept()));
    meta.put("threshold", Double.toString(model.getThreshold()));
    meta.put("calibration", calibrator.method().paramValue());
    String doc = "Perceptron classifier (spark-perceptron " + model.uid() + "): "
        + model.numClasses() + " classes, " + model.numFeatures() + " features, averaging="
        + model.getAveraging() + (model.numClasses() == 2 ? ", threshold=" + model.getThreshold()
        : "") + ". Input features: double [N, " + model.numFeatures() + "]; outputs prediction"
        + " (double [N], the class index), rawPrediction (Spark's raw prediction) and"
        + " probability (Spark's probability, calibration="
        + calibrator.method().paramValue() + ").";
    return new PerceptronGraphs.Description(doc, meta, calibrator,
        SparkPerceptronVersion.VERSION);
  }
}
