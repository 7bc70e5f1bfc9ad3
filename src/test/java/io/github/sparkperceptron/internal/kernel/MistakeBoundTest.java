package io.github.sparkperceptron.internal.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.testing.NaivePerceptron;
import io.github.sparkperceptron.testing.TestData;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Novikoff's theorem (1962): on data separable with margin γ by a unit vector, inside a ball of
 * radius R, the perceptron started at w = 0 makes at most R²/γ² mistakes, whatever the order and
 * the step size. Collins (2002) extends it to the multiclass perceptron with R bounding the norm of
 * feature differences.
 */
class MistakeBoundTest {

  @Test
  void serialPerceptronObeysNovikoffBound() {
    for (long seed = 1; seed <= 5; seed++) {
      TestData.Separable data = TestData.separable(seed, 400, 5, 0.1, 2);
      double bound = Math.pow(data.boundRadius / data.gamma, 2);
      long mistakes = totalMistakes(data, 2, 100);
      assertTrue(mistakes <= bound, "mistakes " + mistakes + " > R²/γ² = " + bound);
      assertTrue(mistakes > 0);
    }
  }

  @Test
  void multiclassPerceptronObeysCollinsBound() {
    for (long seed = 1; seed <= 3; seed++) {
      TestData.Separable data = TestData.separable(seed, 300, 4, 0.2, 4);
      double bound = Math.pow(data.boundRadius / data.gamma, 2);
      long mistakes = totalMistakes(data, 4, 200);
      assertTrue(mistakes <= bound, "mistakes " + mistakes + " > R²/γ² = " + bound);
    }
  }

  private static long totalMistakes(TestData.Separable data, int k, int maxEpochs) {
    List<double[]> xs = new ArrayList<>();
    List<Integer> ys = new ArrayList<>();
    for (TestData.Example e : data.examples) {
      xs.add(e.features.toArray());
      ys.add((int) e.label);
    }
    // No bias: the generator's separators pass through the origin, which is the bound's geometry.
    LearnerConfig config = Blocks.config(xs.get(0).length, k, false, 0.37, UpdateRule.PERCEPTRON,
        1.0, Averaging.NONE);
    List<EpochStats> stats = new ArrayList<>();
    Blocks.train(config, Blocks.dense(xs, ys, null), maxEpochs,
        NaivePerceptron.inOrder(xs.size()), stats);
    assertEquals(0, stats.get(stats.size() - 1).updates, "separable data must converge");
    long total = 0;
    for (EpochStats s : stats) {
      total += s.mistakes;
    }
    return total;
  }
}
