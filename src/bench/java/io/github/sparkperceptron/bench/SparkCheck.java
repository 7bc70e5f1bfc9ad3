package io.github.sparkperceptron.bench;

import io.github.sparkperceptron.internal.mixing.MixingMode;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Checks that {@link MixingSimulation} with contiguous slices gives the model of
 * {@code PerceptronClassifier.fit} on the same rows in W partitions in order, bit for bit:
 * {@code MixingSimulation --check-spark DATA_DIR SET CONFIGS WORKERS EPOCHS SEED} (a real set of
 * {@code data-samples/}, optionally SET@N for its first N rows). Prints one line per
 * configuration and worker count and exits 1 on the first difference.
 */
final class SparkCheck {
  private SparkCheck() {
  }

  static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    String spec = args[1];
    String[] configs = args[2].split(",");
    String[] workerCounts = args[3].split(",");
    int epochs = Integer.parseInt(args[4]);
    long seed = Long.parseLong(args[5]);
    MixingSimulation sim = MixingSimulation.load(dir, spec);
    int at = spec.indexOf('@');
    String set = at < 0 ? spec : spec.substring(0, at);
    int d = sim.numFeatures();
    List<TestData.Example> rows = TestData.readLibSvm(dir.resolve(set).resolve("train.libsvm"), d)
        .subList(0, sim.trainingRows());
    SparkSession spark = SparkTestSupport.spark();
    int failures = 0;
    for (String c : configs) {
      String[] parts = c.split(":", 2);
      MixingMode mode = MixingMode.fromParam(parts[0]);
      String roundsSpec = parts.length > 1 ? parts[1] : "";
      for (String count : workerCounts) {
        int workers = Integer.parseInt(count);
        MixingSimulation.Outcome o = sim.run(mode, roundsSpec, workers, seed, epochs, true);
        Dataset<Row> frame = TestData.frameInOrder(spark, rows, workers);
        PerceptronClassificationModel model = new PerceptronClassifier().setMixing(parts[0])
            .setMixingRounds(roundsSpec.equals("auto") ? 0 : o.rounds).setMaxIter(epochs)
            .setTol(0.0).setSeed(seed).setNumWorkers(workers).fit(frame);
        double[] fitted = stateOf(model, d);
        int differing = 0;
        for (int j = 0; j < fitted.length; j++) {
          if (Double.doubleToLongBits(fitted[j]) != Double.doubleToLongBits(o.model[j])) {
            differing++;
          }
        }
        System.out.printf(Locale.ROOT, "%s %s W=%d R=%d: %s (%d of %d coordinates differ;"
            + " restarts %d)%n", spec, c, workers, o.rounds,
            differing == 0 ? "bit for bit the Spark model" : "DIFFERENT", differing,
            fitted.length, o.restarts);
        failures += differing == 0 ? 0 : 1;
      }
    }
    spark.stop();
    if (failures > 0) {
      System.exit(1);
    }
  }

  /** The model's weights in the trainer's class-major layout (bias last in each row). */
  private static double[] stateOf(PerceptronClassificationModel model, int d) {
    int rows = model.numClasses() == 2 ? 1 : model.numClasses();
    double[] out = new double[rows * (d + 1)];
    if (rows == 1) {
      double[] w = model.coefficients().toArray();
      System.arraycopy(w, 0, out, 0, d);
      out[d] = model.intercept();
      return out;
    }
    for (int k = 0; k < rows; k++) {
      for (int j = 0; j < d; j++) {
        out[k * (d + 1) + j] = model.coefficientMatrix().apply(k, j);
      }
      out[k * (d + 1) + d] = model.interceptVector().apply(k);
    }
    return out;
  }
}
