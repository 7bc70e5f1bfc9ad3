package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.io.TextInput;
import io.github.sparkperceptron.internal.ml.EngineBridge;
import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The train job's data as read: the training and test rows in cached blocks (text files, read in
 * one pass) or as DataFrames (Parquet, a validation file, --partitions); fitted and evaluated
 * through the path they took. Closing it releases the blocks.
 */
final class TrainingData implements AutoCloseable {
  /** How reading mapped the training labels, or "". */
  final String labelNote;
  /** The input column of each feature (CSV, Parquet columns), or empty. */
  final List<String> featureNames;
  /** The training input's partitions (file splits). */
  final int inputPartitions;
  private final TrainingInput trainBlocks;
  private final TrainingInput testBlocks;
  private final Dataset<Row> trainFrame;
  private final Dataset<Row> trainingRows;
  private final Dataset<Row> testFrame;

  private TrainingData(String labelNote, List<String> featureNames, int inputPartitions,
      TrainingInput trainBlocks, TrainingInput testBlocks, Dataset<Row>[] frames) {
    this.labelNote = labelNote;
    this.featureNames = featureNames;
    this.inputPartitions = inputPartitions;
    this.trainBlocks = trainBlocks;
    this.testBlocks = testBlocks;
    this.trainFrame = frames[0];
    this.trainingRows = frames[1];
    this.testFrame = frames[2];
  }

  /** Blocks read in one pass from {@code trainText} (and a test input, or null). */
  @SuppressWarnings("unchecked")
  static TrainingData blocks(TrainingInput train, TrainingInput test, TextInput trainText) {
    return new TrainingData(train.labelNote(), trainText.featureNames(),
        trainText.inputSplits(), train, test, new Dataset[3]);
  }

  /**
   * DataFrames: {@code trainFrame} is fitted (validation rows included), {@code trainingRows}
   * (its training rows) and {@code testFrame} (or null) evaluated.
   */
  @SuppressWarnings("unchecked")
  static TrainingData frames(Dataset<Row> trainFrame, Dataset<Row> trainingRows,
      Dataset<Row> testFrame, String labelNote, List<String> featureNames) {
    return new TrainingData(labelNote, featureNames, trainFrame.rdd().getNumPartitions(), null,
        null, new Dataset[] {trainFrame, trainingRows, testFrame});
  }

  PerceptronClassificationModel fit(PerceptronClassifier estimator) {
    return trainBlocks != null ? EngineBridge.fit(estimator, trainBlocks)
        : estimator.fit(trainFrame);
  }

  /** The model on the training rows (validation rows left out). */
  Evaluation evaluateTraining(PerceptronClassificationModel model) {
    return trainBlocks != null ? Evaluation.of(model, trainBlocks)
        : Evaluation.of(model, trainingRows);
  }

  /** The model on the test rows, or null without them. */
  Evaluation evaluateTest(PerceptronClassificationModel model) {
    if (testBlocks != null) {
      return Evaluation.of(model, testBlocks);
    }
    return testFrame == null ? null : Evaluation.of(model, testFrame);
  }

  @Override
  public void close() {
    if (trainBlocks != null) {
      trainBlocks.close();
    }
    if (testBlocks != null) {
      testBlocks.close();
    }
  }
}
