package io.github.sparkperceptron.testing;

import java.util.ArrayList;
import java.util.List;

/** Converts test examples to the naive reference's dense inputs. */
public final class Examples {
  private Examples() {
  }

  public static List<double[]> dense(List<TestData.Example> examples) {
    List<double[]> out = new ArrayList<>();
    for (TestData.Example e : examples) {
      out.add(e.features.toArray());
    }
    return out;
  }

  public static List<Integer> labels(List<TestData.Example> examples) {
    List<Integer> out = new ArrayList<>();
    for (TestData.Example e : examples) {
      out.add((int) e.label);
    }
    return out;
  }
}
