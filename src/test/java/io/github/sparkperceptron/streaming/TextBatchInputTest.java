package io.github.sparkperceptron.streaming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.blocks.BatchInput;
import io.github.sparkperceptron.internal.io.BadInputException;
import io.github.sparkperceptron.internal.io.LibSvmSource;
import io.github.sparkperceptron.internal.io.ReadSpec;
import io.github.sparkperceptron.internal.io.TextInput;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.SparkTestSupport;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A stream's batch of text files read in one pass ({@link BatchInput#text}: the workers parse
 * their lines straight into their blocks) learns what the same files give as a DataFrame of the
 * two-pass reader ({@link LibSvmSource}): the same prequential counts and updates batch by batch
 * and the same model bit for bit, on one split per file dealt over two workers (the one-job
 * path and the score-then-learn path), the first batch's width taken from its rows; and a bad
 * line is refused with its file and line, the learner left as it was.
 */
class TextBatchInputTest {
  private static final SparkSession SPARK = SparkTestSupport.spark();
  private static final String ROLE = "stream input";

  @TempDir
  Path tmp;

  @ParameterizedTest(name = "{0}: {1} mixing, averaging {2}")
  @CsvSource({
      "breast_cancer, momentum, average",
      "breast_cancer, mistakes, none",
      "pendigits,     mistakes, average",
  })
  void oneReadPerBatchLearnsWhatTheDataFrameOfTheSameFilesLearns(String dataset, String mixing,
      String averaging) throws IOException {
    List<String> lines = StreamInput.lines(dataset, "train.libsvm");
    List<Path> files = new ArrayList<>();
    List<List<String>> slices = StreamInput.slices(lines.subList(0,
        Math.min(lines.size(), 1500)), 3);
    for (int b = 0; b < slices.size(); b++) {
      Path file = tmp.resolve(String.format("batch-%d.libsvm", b));
      Files.write(file, slices.get(b));
      files.add(file);
    }
    List<BatchReport> text = new ArrayList<>();
    List<BatchReport> frame = new ArrayList<>();
    StreamingPerceptron oneRead = trainer(mixing, averaging, "text", text);
    StreamingPerceptron twoReads = trainer(mixing, averaging, "frame", frame);
    for (int b = 0; b < files.size(); b++) {
      String file = files.get(b).toString();
      int width = b == 0 ? -1 : oneRead.progress().numFeatures();
      oneRead.processBatchInput(b, textOf(file, width));
      twoReads.processBatch(b, () -> LibSvmSource.read(SPARK, file, spec(width), ROLE).frame());
      assertEquals(frame.get(b).rows(), text.get(b).rows(), "batch " + b);
      assertEquals(frame.get(b).prequentialCorrect(), text.get(b).prequentialCorrect(),
          "batch " + b + ": prequential count");
      assertEquals(frame.get(b).updates(), text.get(b).updates(), "batch " + b + ": updates");
    }
    assertTrue(text.get(2).updates() > 0, "the last batch still learns something");
    assertBitIdentical(twoReads, oneRead);
  }

  @Test
  void aBadLineIsRefusedWithItsFileAndLineAndTheLearnerIsAsBefore() throws IOException {
    List<String> lines = StreamInput.lines("breast_cancer", "train.libsvm");
    Path good = tmp.resolve("good.libsvm");
    Files.write(good, lines.subList(0, 200));
    List<String> badLines = new ArrayList<>(lines.subList(200, 260));
    badLines.set(6, "1 3:0.5 2:0.25");
    Path bad = tmp.resolve("bad.libsvm");
    Files.write(bad, badLines);
    List<BatchReport> reports = Collections.synchronizedList(new ArrayList<>());
    StreamingPerceptron trainer = trainer("momentum", "average", "bad", reports);
    trainer.processBatchInput(0, textOf(good.toString(), -1));
    double[] before = weights(trainer.latestModel());

    BadInputException e = assertThrows(BadInputException.class,
        () -> trainer.processBatchInput(1, textOf(bad.toString(), 30)));
    assertTrue(e.getMessage().contains("bad.libsvm:7"), e.getMessage());
    assertTrue(e.getMessage().contains("feature index 2 follows 3"), e.getMessage());
    assertEquals(1, reports.size(), "the bad batch is not reported as learnt");
    assertArrayEquals(before, weights(trainer.latestModel()), 0.0);
    assertEquals(0, trainer.progress().lastBatchId());
  }

  /**
   * A batch of nothing but empty files reaches the learner as a DataFrame without partitions:
   * nothing to learn, no error; the next batch learns as the first.
   */
  @Test
  void aBatchWithoutPartitionsHoldsNothingToLearn() throws IOException {
    List<BatchReport> reports = new ArrayList<>();
    StreamingPerceptron trainer = trainer("momentum", "average", "empty", reports);
    trainer.processBatch(0, () -> SPARK.createDataFrame(List.of(), TestData.SCHEMA));
    assertTrue(reports.isEmpty());
    assertTrue(!trainer.hasModel(), "no model from no rows");
    Path good = tmp.resolve("good.libsvm");
    Files.write(good, StreamInput.lines("breast_cancer", "train.libsvm").subList(0, 100));
    trainer.processBatchInput(1, textOf(good.toString(), -1));
    assertEquals(1, reports.size());
    assertEquals(100, reports.get(0).rows());
  }

  private StreamingPerceptron trainer(String mixing, String averaging, String name,
      List<BatchReport> reports) {
    return new StreamingPerceptron(new PerceptronClassifier().setMixing(mixing)
        .setAveraging(averaging).setNumWorkers(2).setSeed(3))
        .setCheckpointLocation(tmp.resolve(name).toString()).addListener(reports::add);
  }

  private static ReadSpec spec(int width) {
    ReadSpec labelled = ReadSpec.labelled();
    return width >= 0 ? labelled.withNumFeatures(width, "the model") : labelled;
  }

  private static Supplier<BatchInput> textOf(String file, int width) {
    return () -> BatchInput.text(workers -> TextInput.plan(SPARK, file, TextInput.Format.LIBSVM,
        spec(width), ROLE, workers));
  }

  private static void assertBitIdentical(StreamingPerceptron expected,
      StreamingPerceptron actual) {
    double[] a = weights(expected.latestModel());
    double[] b = weights(actual.latestModel());
    assertEquals(a.length, b.length);
    for (int i = 0; i < a.length; i++) {
      assertEquals(Double.doubleToRawLongBits(a[i]), Double.doubleToRawLongBits(b[i]),
          "weight " + i + ": " + a[i] + " vs " + b[i]);
    }
  }

  /** The model's coefficients, row by row, then its intercepts. */
  private static double[] weights(PerceptronClassificationModel model) {
    Matrix coef = model.coefficientMatrix();
    double[] out = new double[coef.numRows() * (coef.numCols() + 1)];
    int i = 0;
    for (int r = 0; r < coef.numRows(); r++) {
      for (int c = 0; c < coef.numCols(); c++) {
        out[i++] = coef.apply(r, c);
      }
    }
    for (double b : model.interceptVector().toArray()) {
      out[i++] = b;
    }
    return out;
  }
}
