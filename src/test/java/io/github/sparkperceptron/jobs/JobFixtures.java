package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.internal.io.LibSvmSource;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.ml.linalg.Vector;

/** Saved models and data files in the jobs' formats, made once per test class. */
final class JobFixtures {
  static final Path BREAST_TRAIN = TestData.sharedData("breast_cancer", "train.libsvm");
  static final Path BREAST_TEST = TestData.sharedData("breast_cancer", "test.libsvm");
  static final Path IRIS_TRAIN = TestData.sharedData("iris", "train.libsvm");
  static final Path IRIS_TEST = TestData.sharedData("iris", "test.libsvm");

  private JobFixtures() {
  }

  /** Trains a few epochs on a LIBSVM file with the library and saves the model under dir. */
  static PerceptronClassificationModel trainAndSave(Path libsvm, Path dir) {
    PerceptronClassificationModel model = new PerceptronClassifier().setMaxIter(5)
        .fit(LibSvmSource.read(SparkTestSupport.spark(), libsvm.toString(), -1, "training data")
            .frame());
    try {
      model.write().save(dir.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return model;
  }

  /** Writes a LIBSVM file as CSV: an id column, the label, then x1..xd. */
  static Path asCsv(Path libsvm, int numFeatures, Path csv) {
    List<String> lines = new ArrayList<>();
    StringBuilder header = new StringBuilder("id,label");
    for (int j = 1; j <= numFeatures; j++) {
      header.append(",x").append(j);
    }
    lines.add(header.toString());
    int row = 0;
    for (TestData.Example e : TestData.readLibSvm(libsvm, numFeatures)) {
      StringBuilder line = new StringBuilder("\"row " + (++row) + "\"");
      line.append(',').append(String.format(Locale.ROOT, "%.0f", e.label));
      Vector x = e.features;
      for (int j = 0; j < numFeatures; j++) {
        line.append(',').append(x.apply(j));
      }
      lines.add(line.toString());
    }
    try {
      Files.write(csv, lines);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return csv;
  }

  /** Every regular file under dir, for checks that nothing half-written is left. */
  static List<String> filesUnder(Path dir) throws IOException {
    List<String> names = new ArrayList<>();
    try (var walk = Files.walk(dir)) {
      walk.filter(Files::isRegularFile).forEach(p -> names.add(dir.relativize(p).toString()));
    }
    return names;
  }
}
