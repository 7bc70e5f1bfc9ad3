package io.github.sparkperceptron.onnx;

import io.github.sparkperceptron.internal.calibration.Calibrator;
import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import io.github.sparkperceptron.internal.onnx.OnnxProto.GraphProto;
import io.github.sparkperceptron.internal.onnx.OnnxProto.ModelProto;
import io.github.sparkperceptron.internal.onnx.OnnxProto.OperatorSetIdProto;
import io.github.sparkperceptron.internal.onnx.OnnxProto.StringStringEntryProto;
import io.github.sparkperceptron.internal.onnx.OnnxProto.TensorProto.DataType;
import java.util.Map;

/**
 * The ONNX graphs of a perceptron model, built from its numbers alone (no Spark): the same
 * prediction rules as {@code PerceptronClassificationModel}, written with standard ONNX operators
 * in double precision.
 *
 * <pre>
 * input   features       double [N, d]
 * outputs prediction     double [N]      the class index, as Spark's prediction column
 *         rawPrediction  double [N, K'']  Spark's raw prediction: [−m, m] for binary models
 *                                         (K'' = 2), the K scores or vote totals otherwise
 *         probability    double [N, K'']  Spark's probability column: the model's calibrator
 *                                         of the margin or scores ({@link ProbabilityGraph})
 *
 * linear (averaging none / average)
 *   scores = MatMul(features, W) + b                      W = coefficients as d × K', b intercepts
 *   binary      rawPrediction = Concat(−scores, scores);  prediction = Cast(scores &gt; threshold)
 *   multiclass  rawPrediction = scores;                   prediction = Cast(ArgMax(scores))
 *
 * vote (averaging vote; Freund &amp; Schapire 1999, as {@link VotedPerceptron} scores it)
 *   per segment s (a partition's epoch): its start vector's scores, then after each update u
 *   the scores moved by δ_u·(x_u·x + bias)·(e_raised − e_lowered), accumulated in the same
 *   order as the Java code (CumSum), then each vector's vote c·sign (binary: score &gt; 0, sign(0)
 *   = −1) or c·[arg-max class] (ties to the lowest class), summed in vote order (CumSum, last)
 * </pre>
 *
 * <p>Operators (opset {@value #OPSET}, IR version {@value #IR_VERSION}: ONNX 1.12, ONNX Runtime
 * 1.12 and later): MatMul, Add, Neg, Concat, Greater, Cast, Reshape, ArgMax; the vote adds
 * Gather, Unsqueeze, Mul, CumSum, Where, Equal. ONNX Runtime's CPU kernels of each of them take
 * double tensors. ArgMax keeps the first of equal maxima (select_last_index = 0), as Spark's
 * arg-max does; the threshold is part of the graph (the model's at export).
 *
 * <p>The linear graph is a matrix product: its raw scores differ from Spark's sequential dot
 * product in the last bits at most (the tests bound them by 1e-9 relative), and a prediction can
 * differ only for a margin within that of the threshold.
 */
final class PerceptronGraphs {
  static final int OPSET = 17;
  static final int IR_VERSION = 8;
  static final String FEATURES = "features";
  static final String PREDICTION = "prediction";
  static final String RAW_PREDICTION = "rawPrediction";

  private PerceptronGraphs() {
  }

  /**
   * What the model file says about itself besides the graph, the model's calibrator (its
   * probability output) and the library's version (the file's producer version).
   */
  record Description(String docString, Map<String, String> metadata, Calibrator calibrator,
      String producerVersion) {
  }

  /**
   * A linear model: {@code coefficientsDxK} holds W as d × K' in row-major order (Spark's K' × d
   * coefficient matrix in column-major order), {@code intercepts} the K' intercepts.
   */
  static ModelProto linear(Description about, int numClasses, int numFeatures,
      double[] coefficientsDxK, double[] intercepts, double threshold) {
    int rows = numClasses == 2 ? 1 : numClasses;
    OnnxGraph g = graph(about, numClasses, numFeatures);
    String w = g.doubles("coefficients", coefficientsDxK, numFeatures, rows);
    String b = g.doubles("intercepts", intercepts, rows);
    String product = g.node("MatMul", new String[] {FEATURES, w});
    if (numClasses == 2) {
      String margin = g.node("Add", new String[] {product, b});
      binaryOutputs(g, margin, threshold);
      ProbabilityGraph.add(g, about.calibrator(), margin);
    } else {
      String raw = g.nodeNamed(RAW_PREDICTION, "Add", new String[] {product, b});
      multiclassPrediction(g, raw);
      ProbabilityGraph.add(g, about.calibrator(), raw);
    }
    return model(about, g.build());
  }

  /** A voted model; see the class comment for the graph. */
  static ModelProto voted(Description about, VotedPerceptron vote, double threshold) {
    int numClasses = vote.numClasses();
    int d = vote.numFeatures();
    int rows = numClasses == 2 ? 1 : numClasses;
    VoteLayout layout = VoteLayout.of(vote);
    OnnxGraph g = graph(about, numClasses, d);

    // Every start vector's scores, then each segment's: [N, S, 1, K'].
    String starts = g.doubles("start_coefficients", layout.startCoefficients, d,
        (long) layout.numStarts * rows);
    String startBias = g.doubles("start_intercepts", layout.startIntercepts,
        (long) layout.numStarts * rows);
    String startScores = g.node("Add", new String[] {
        g.node("MatMul", new String[] {FEATURES, starts}), startBias});
    String byStart = g.node("Reshape", new String[] {startScores,
        g.longs("start_shape", new long[] {-1, layout.numStarts, rows}, 3)});
    String bySegment = g.node("Gather", new String[] {byStart,
        g.longs("segment_start", layout.segmentStart, layout.numSegments)},
        OnnxGraph.intAttribute("axis", 1));
    String axis2 = g.longs("axis_2", new long[] {2}, 1);
    String steps = g.node("Unsqueeze", new String[] {bySegment, axis2});

    if (layout.maxUpdates > 0) {
      // Each update's move of the scores, δ·(x_u·x + bias)·direction: [N, U+1, K'], the last
      // one a zero move that pads the segments to equal length.
      String updateRows = g.doubles("update_rows", layout.updateRows, d,
          layout.numUpdates + 1L);
      String dots = g.node("Add", new String[] {
          g.node("MatMul", new String[] {FEATURES, updateRows}),
          g.doubles("bias_value", new double[] {vote.fitIntercept() ? 1.0 : 0.0})});
      String moves = g.node("Mul", new String[] {
          g.node("Unsqueeze", new String[] {dots, axis2}),
          g.doubles("update_directions", layout.updateDirections, layout.numUpdates + 1L, rows)});
      String movesBySegment = g.node("Gather", new String[] {moves,
          g.longs("segment_updates", layout.segmentUpdates, layout.numSegments,
              layout.maxUpdates)}, OnnxGraph.intAttribute("axis", 1));
      steps = g.node("Concat", new String[] {steps, movesBySegment},
          OnnxGraph.intAttribute("axis", 2));
    }
    // The scores of every intermediate vector, in Java's order of additions: [N, S, L, K'].
    String scores = g.node("CumSum", new String[] {steps, g.longs("axis", new long[] {2})});
    int vectorsPerSegment = layout.maxUpdates + 1;
    long voters = (long) layout.numSegments * vectorsPerSegment;
    String weights = g.doubles("vote_weights", layout.voteWeights, layout.numSegments,
        vectorsPerSegment);
    String lastVoter = g.longs("last_voter", new long[] {voters - 1}, 1);
    String axis1 = g.longs("axis_1", new long[] {1});
    if (numClasses == 2) {
      String margins = g.node("Reshape", new String[] {scores,
          g.longs("margin_shape", new long[] {-1, layout.numSegments, vectorsPerSegment}, 3)});
      String ballots = g.node("Where", new String[] {
          g.node("Greater", new String[] {margins, g.doubles("zero", new double[] {0.0})}),
          weights, g.node("Neg", new String[] {weights})});
      String running = g.node("CumSum", new String[] {g.node("Reshape", new String[] {ballots,
          g.longs("ballot_shape", new long[] {-1, voters}, 2)}), axis1});
      String total = g.node("Gather", new String[] {running, lastVoter},
          OnnxGraph.intAttribute("axis", 1));
      binaryOutputs(g, total, threshold);
      ProbabilityGraph.add(g, about.calibrator(), total);
    } else {
      String chosen = g.node("ArgMax", new String[] {scores}, OnnxGraph.intAttribute("axis", 3),
          OnnxGraph.intAttribute("keepdims", 1), OnnxGraph.intAttribute("select_last_index", 0));
      long[] classes = new long[numClasses];
      for (int k = 0; k < numClasses; k++) {
        classes[k] = k;
      }
      String ballots = g.node("Mul", new String[] {
          g.node("Cast", new String[] {g.node("Equal", new String[] {chosen,
              g.longs("classes", classes, numClasses)})},
              OnnxGraph.intAttribute("to", DataType.DOUBLE.getNumber())),
          g.node("Unsqueeze", new String[] {weights, g.longs("axis_last", new long[] {-1}, 1)})});
      String running = g.node("CumSum", new String[] {g.node("Reshape", new String[] {ballots,
          g.longs("ballot_shape", new long[] {-1, voters, numClasses}, 3)}), axis1});
      String totals = g.node("Gather", new String[] {running, lastVoter},
          OnnxGraph.intAttribute("axis", 1));
      String raw = g.nodeNamed(RAW_PREDICTION, "Reshape", new String[] {totals,
          g.longs("raw_shape", new long[] {-1, numClasses}, 2)});
      multiclassPrediction(g, raw);
      ProbabilityGraph.add(g, about.calibrator(), raw);
    }
    return model(about, g.build());
  }

  private static OnnxGraph graph(Description about, int numClasses, int numFeatures) {
    OnnxGraph g = new OnnxGraph("perceptron", about.docString());
    g.input(FEATURES, DataType.DOUBLE, "dense feature vectors, one row per example",
        "N", numFeatures);
    g.output(PREDICTION, DataType.DOUBLE, "the predicted class index, as Spark's prediction",
        "N");
    g.output(RAW_PREDICTION, DataType.DOUBLE, numClasses == 2
        ? "[-m, m]: the margin (or vote total) m, as Spark's rawPrediction"
        : "the score (or vote total) of each class, as Spark's rawPrediction",
        "N", numClasses == 2 ? 2 : numClasses);
    return g;
  }

  /** Binary outputs from the margins (or vote totals) m, [N, 1]. */
  private static void binaryOutputs(OnnxGraph g, String margin, double threshold) {
    g.nodeNamed(RAW_PREDICTION, "Concat", new String[] {g.node("Neg", new String[] {margin}),
        margin}, OnnxGraph.intAttribute("axis", 1));
    String above = g.node("Greater", new String[] {margin,
        g.doubles("threshold", new double[] {threshold})});
    String asDouble = g.node("Cast", new String[] {above},
        OnnxGraph.intAttribute("to", DataType.DOUBLE.getNumber()));
    g.nodeNamed(PREDICTION, "Reshape", new String[] {asDouble,
        g.longs("prediction_shape", new long[] {-1}, 1)});
  }

  private static void multiclassPrediction(OnnxGraph g, String raw) {
    String best = g.node("ArgMax", new String[] {raw}, OnnxGraph.intAttribute("axis", 1),
        OnnxGraph.intAttribute("keepdims", 0), OnnxGraph.intAttribute("select_last_index", 0));
    g.nodeNamed(PREDICTION, "Cast", new String[] {best},
        OnnxGraph.intAttribute("to", DataType.DOUBLE.getNumber()));
  }

  private static ModelProto model(Description about, GraphProto graph) {
    ModelProto.Builder m = ModelProto.newBuilder().setIrVersion(IR_VERSION)
        .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(OPSET))
        .setProducerName("spark-perceptron").setProducerVersion(about.producerVersion())
        .setDomain("io.github.sparkperceptron").setModelVersion(1)
        .setDocString(about.docString()).setGraph(graph);
    about.metadata().forEach((k, v) ->
        m.addMetadataProps(StringStringEntryProto.newBuilder().setKey(k).setValue(v)));
    return m.build();
  }
}
