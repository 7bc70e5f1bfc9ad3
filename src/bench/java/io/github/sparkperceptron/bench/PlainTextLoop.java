package io.github.sparkperceptron.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Issue 20's yardstick: the loop a user would write without Spark, one thread, one pass over
 * LIBSVM files. Each line is split with {@link String#split}, its numbers parsed with
 * {@link Integer#parseInt} and {@link Double#parseDouble}; the row is first scored by the averaged
 * perceptron's model as it stands (prequential, as {@code submit/stream-train} scores every row
 * before learning from it), then the perceptron update (Rosenblatt 1958) is made when the current
 * weights misclassify it. The average of the weights over all steps (Freund and Schapire 1999) is
 * kept without an O(d) pass per row by the lazy trick of Daumé III, "A Course in Machine Learning",
 * algorithm "AveragedPerceptronTrain": with a step counter c, an update y·x also adds c·y·x to u,
 * and the average is w − u/c, so its score of x is w·x − (u·x)/c.
 *
 * <p>Binary only: a label above 0 is +1, else −1 (what {@code submit/generate} writes: 0 and 1).
 * LIBSVM's indices are 1-based. Not a library class: the benchmark's reference only.
 */
final class PlainTextLoop {
  private PlainTextLoop() {
  }

  /** What one pass did: rows read, rows the averaged model scored right before learning, updates. */
  record Result(double seconds, long rows, long prequentialCorrect, long updates) {
    double rowsPerSecond() {
      return rows / seconds;
    }

    double prequentialAccuracy() {
      return (double) prequentialCorrect / rows;
    }
  }

  /** One pass over {@code files} in the given order, timed from the first read to the last update. */
  static Result run(List<Path> files, int numFeatures) throws IOException {
    long start = System.nanoTime();
    double[] w = new double[numFeatures];
    double[] u = new double[numFeatures];
    double bias = 0;
    double biasU = 0;
    long step = 1;
    long rows = 0;
    long correct = 0;
    long updates = 0;
    int[] index = new int[64];
    double[] value = new double[64];
    for (Path file : files) {
      try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        String line;
        while ((line = reader.readLine()) != null) {
          if (line.isBlank()) {
            continue;
          }
          String[] tokens = line.trim().split(" ");
          int y = Double.parseDouble(tokens[0]) > 0 ? 1 : -1;
          int n = tokens.length - 1;
          if (n > index.length) {
            index = Arrays.copyOf(index, 2 * n);
            value = Arrays.copyOf(value, 2 * n);
          }
          for (int k = 0; k < n; k++) {
            String[] pair = tokens[k + 1].split(":");
            index[k] = Integer.parseInt(pair[0]) - 1;
            value[k] = Double.parseDouble(pair[1]);
          }
          double scoreW = bias;
          double scoreU = biasU;
          for (int k = 0; k < n; k++) {
            scoreW += w[index[k]] * value[k];
            scoreU += u[index[k]] * value[k];
          }
          double averaged = scoreW - scoreU / step;
          if ((averaged > 0 ? 1 : -1) == y) {
            correct++;
          }
          if (y * scoreW <= 0) {
            for (int k = 0; k < n; k++) {
              w[index[k]] += y * value[k];
              u[index[k]] += step * y * value[k];
            }
            bias += y;
            biasU += step * y;
            updates++;
          }
          step++;
          rows++;
        }
      }
    }
    return new Result((System.nanoTime() - start) / 1e9, rows, correct, updates);
  }
}
