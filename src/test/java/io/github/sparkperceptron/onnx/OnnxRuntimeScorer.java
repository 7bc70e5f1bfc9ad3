package io.github.sparkperceptron.onnx;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.nio.DoubleBuffer;
import java.util.Map;

/**
 * An exported model loaded in ONNX Runtime (its Java API), scoring dense rows in batches: what a
 * service outside Spark runs. One intra-op thread, so that tests share the machine politely.
 */
final class OnnxRuntimeScorer implements AutoCloseable {
  /** The outputs for a batch of rows. */
  record Scores(double[] prediction, double[][] rawPrediction, double[][] probability) {
  }

  private final OrtEnvironment env = OrtEnvironment.getEnvironment();
  private final OrtSession session;

  OnnxRuntimeScorer(byte[] model) throws OrtException {
    try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
      options.setIntraOpNumThreads(1);
      options.setInterOpNumThreads(1);
      session = env.createSession(model, options);
    }
  }

  OrtSession session() {
    return session;
  }

  /** Scores {@code rows} dense rows of {@code d} features laid out row after row. */
  Scores score(double[] rowMajor, int rows, int d) throws OrtException {
    try (OnnxTensor features = OnnxTensor.createTensor(env, DoubleBuffer.wrap(rowMajor),
            new long[] {rows, d});
        OrtSession.Result result = session.run(Map.of("features", features))) {
      double[] prediction = (double[]) result.get("prediction").orElseThrow().getValue();
      double[][] raw = (double[][]) result.get("rawPrediction").orElseThrow().getValue();
      double[][] probability = (double[][]) result.get("probability").orElseThrow().getValue();
      return new Scores(prediction, raw, probability);
    }
  }

  @Override
  public void close() throws OrtException {
    session.close();
  }
}
