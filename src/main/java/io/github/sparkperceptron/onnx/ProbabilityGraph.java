package io.github.sparkperceptron.onnx;

import io.github.sparkperceptron.internal.calibration.CalibrationMethod;
import io.github.sparkperceptron.internal.calibration.Calibrator;
import io.github.sparkperceptron.internal.calibration.IsotonicSteps;
import io.github.sparkperceptron.internal.onnx.OnnxProto.TensorProto.DataType;

/**
 * The {@code probability} output of a perceptron graph: the model's {@link Calibrator} written
 * with standard ONNX operators in double precision, the same arithmetic in the same order as the
 * Java code, so that ONNX Runtime gives Spark's probabilities to within the rounding of its
 * {@code Exp} and its sums.
 *
 * <pre>
 * binary, sigmoid or none   m' = Min(Max(m, −MAX), MAX);  p1 = 1 / (1 + Exp(m'·A + B))
 * K classes, sigmoid/none   t = Min(Max(Min(Max(z, −MAX), MAX)·a, −MAX), MAX)
 *                           p = Exp(t − ReduceMax(t)) / ReduceSum(Exp(t − ReduceMax(t)))
 * isotonic                  s = Min(Max(score, b_first), b_last) per class, then the last j with
 *                           b_j ≤ s by a binary search unrolled into ⌈log2 B⌉ + 1 steps of
 *                           Gather / LessOrEqual / Where on int64 indices (O(log B) per score,
 *                           not a comparison with every boundary); q = v_j + slope_j·(s − b_j),
 *                           NaN where the score is NaN; K classes: p = q / Σq, 1/K each where
 *                           Σq = 0 (Where)
 * binary outputs            probability = Concat(1 − p1, p1)
 * </pre>
 *
 * MAX is {@link Double#MAX_VALUE}: the clip of the Java code ({@code Calibrator}), which keeps a
 * constant model's infinite scores from giving NaN. Operators (opset {@value
 * PerceptronGraphs#OPSET}): Max, Min, Mul, Add, Sub, Div, Exp, ReduceMax, ReduceSum, Concat,
 * Gather, LessOrEqual, Where, IsNaN, Equal; all take doubles (and int64 indices) in ONNX Runtime's
 * CPU kernels.
 */
final class ProbabilityGraph {
  static final String PROBABILITY = "probability";

  private ProbabilityGraph() {
  }

  /** The doubles an isotonic calibrator adds to the graph (three tables of its kept scores). */
  static long values(Calibrator calibrator) {
    long n = 0;
    for (IsotonicSteps s : calibrator.steps()) {
      n += 3L * s.size() + 2;
    }
    return n + 4;
  }

  /**
   * Adds the {@code probability} output (double [N, K'']) computed from {@code scores}: the
   * margins [N, 1] of a binary model, or the raw prediction [N, K] of a K-class one.
   */
  static void add(OnnxGraph g, Calibrator calibrator, String scores) {
    int k = calibrator.numClasses();
    g.output(PROBABILITY, DataType.DOUBLE, "the class probabilities, as Spark's probability"
        + " column (calibration=" + calibrator.method().paramValue() + ")", "N", k);
    if (k == 2) {
      String p1 = calibrator.method() == CalibrationMethod.ISOTONIC
          ? isotonic(g, calibrator.steps(), scores, "iso")
          : sigmoid(g, calibrator.parameters(), scores);
      String one = g.doubles("prob_one", new double[] {1.0});
      g.nodeNamed(PROBABILITY, "Concat", new String[] {
          g.node("Sub", new String[] {one, p1}), p1}, OnnxGraph.intAttribute("axis", 1));
    } else if (calibrator.method() == CalibrationMethod.ISOTONIC) {
      String q = isotonic(g, calibrator.steps(), scores, "iso");
      String axis = g.longs("prob_axis", new long[] {1}, 1);
      String sum = g.node("ReduceSum", new String[] {q, axis},
          OnnxGraph.intAttribute("keepdims", 1));
      String none = g.node("Equal", new String[] {sum, g.doubles("prob_zero", new double[] {0})});
      g.nodeNamed(PROBABILITY, "Where", new String[] {none,
          g.doubles("prob_uniform", new double[] {1.0 / k}), g.node("Div", new String[] {q, sum})});
    } else {
      softmax(g, calibrator.parameters()[0], scores);
    }
  }

  private static String clip(OnnxGraph g, String x) {
    return g.node("Min", new String[] {g.node("Max", new String[] {x, lowest(g)}),
        highest(g)});
  }

  private static String lowest(OnnxGraph g) {
    return g.doublesOnce("prob_lowest", -Double.MAX_VALUE);
  }

  private static String highest(OnnxGraph g) {
    return g.doublesOnce("prob_highest", Double.MAX_VALUE);
  }


  /** 1 / (1 + Exp(m'·A + B)): Platt's sigmoid (or, for none, A = −1, B = 0). */
  private static String sigmoid(OnnxGraph g, double[] ab, String margins) {
    String a = g.doubles("sigmoid_a", new double[] {ab[0]});
    String z = g.node("Add", new String[] {g.node("Mul", new String[] {clip(g, margins), a}),
        g.doubles("sigmoid_b", new double[] {ab[1]})});
    String one = g.doubles("sigmoid_one", new double[] {1.0});
    return g.node("Div", new String[] {one, g.node("Add", new String[] {one,
        g.node("Exp", new String[] {z})})});
  }

  /** softmax(a·z) with the Java code's clips and max subtraction. */
  private static void softmax(OnnxGraph g, double a, String raw) {
    String t = clip(g, g.node("Mul", new String[] {clip(g, raw),
        g.doubles("temperature_a", new double[] {a})}));
    String max = g.node("ReduceMax", new String[] {t}, OnnxGraph.intsAttribute("axes", 1),
        OnnxGraph.intAttribute("keepdims", 1));
    String e = g.node("Exp", new String[] {g.node("Sub", new String[] {t, max})});
    String axis = g.longs("softmax_axis", new long[] {1}, 1);
    String sum = g.node("ReduceSum", new String[] {e, axis},
        OnnxGraph.intAttribute("keepdims", 1));
    g.nodeNamed(PROBABILITY, "Div", new String[] {e, sum});
  }

  /**
   * The isotonic values of {@code scores} [N, C] (C = one step function per column): the
   * tables of every column one after the other (column c's from c·B, B the most kept scores of
   * any column), an unrolled binary search for the segment, then v + slope·(s − b).
   */
  private static String isotonic(OnnxGraph g, IsotonicSteps[] steps, String scores,
      String name) {
    int c = steps.length;
    int width = 0;
    for (IsotonicSteps s : steps) {
      width = Math.max(width, s.size());
    }
    double[] bounds = new double[c * width];
    double[] values = new double[c * width];
    double[] slopes = new double[c * width];
    double[] first = new double[c];
    double[] last = new double[c];
    long[] offsets = new long[c];
    long[] lastIndex = new long[c];
    for (int k = 0; k < c; k++) {
      double[] b = steps[k].boundaries();
      System.arraycopy(b, 0, bounds, k * width, b.length);
      System.arraycopy(steps[k].values(), 0, values, k * width, b.length);
      System.arraycopy(steps[k].slopes(), 0, slopes, k * width, b.length);
      first[k] = b[0];
      last[k] = b[b.length - 1];
      offsets[k] = (long) k * width;
      lastIndex[k] = (long) k * width + b.length - 1;
    }
    String s = g.node("Min", new String[] {g.node("Max", new String[] {scores,
        g.doubles(name + "_first", first, 1, c)}), g.doubles(name + "_last", last, 1, c)});
    String b = g.doubles(name + "_bounds", bounds, (long) c * width);
    // lo, hi: flat indices into the tables, [N, C] (broadcast from [1, C] at the first step).
    String lo = g.longs(name + "_lo", offsets, 1, c);
    String hi = g.longs(name + "_hi", lastIndex, 1, c);
    String one = g.longs(name + "_one", new long[] {1});
    String two = g.longs(name + "_two", new long[] {2});
    int stepsNeeded = 33 - Integer.numberOfLeadingZeros(Math.max(1, width - 1));
    for (int step = 0; step < stepsNeeded; step++) {
      // mid = (lo + hi + 1) / 2, as the Java binary search; b[mid] <= s moves lo up, else hi down.
      String mid = g.node("Div", new String[] {g.node("Add", new String[] {
          g.node("Add", new String[] {lo, hi}), one}), two});
      String below = g.node("LessOrEqual", new String[] {
          g.node("Gather", new String[] {b, mid}), s});
      String newLo = g.node("Where", new String[] {below, mid, lo});
      hi = g.node("Where", new String[] {below, hi, g.node("Sub", new String[] {mid, one})});
      lo = newLo;
    }
    String value = g.node("Add", new String[] {
        g.node("Gather", new String[] {g.doubles(name + "_values", values, (long) c * width), lo}),
        g.node("Mul", new String[] {
            g.node("Gather", new String[] {g.doubles(name + "_slopes", slopes,
                (long) c * width), lo}),
            g.node("Sub", new String[] {s, g.node("Gather", new String[] {b, lo})})})});
    return g.node("Where", new String[] {g.node("IsNaN", new String[] {scores}),
        g.doubles(name + "_nan", new double[] {Double.NaN}), value});
  }
}
