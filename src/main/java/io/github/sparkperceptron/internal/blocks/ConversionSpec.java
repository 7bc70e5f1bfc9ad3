package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.calibration.CalibrationRows;
import io.github.sparkperceptron.internal.kernel.EpochPlan;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import io.github.sparkperceptron.internal.plan.TrainingConfig;
import java.io.Serializable;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.StorageLevel;

/**
 * What converting a worker's rows needs to know, on the executors: the input columns, the
 * vector size and the classes they must have, how the training rows are laid out, which rows
 * are held out as calibration rows, and where their chunks go (one {@link ChunkStore} for the
 * training rows, one for the validation rows, which also take the calibration rows).
 */
final class ConversionSpec implements Serializable {
  private static final long serialVersionUID = 1L;
  final String labelCol;
  final String featuresCol;
  /** Empty when the rows carry no weight column (else it is column 2). */
  final String weightCol;
  /** Empty when there is no validation indicator (else it is the last column). */
  final String validationCol;
  /** The vector size every row must have, or −1 to take it from the first row. */
  final int expectedFeatures;
  /** Largest class index allowed (from label metadata, or the inference limit). */
  final int maxLabel;
  /** Whether {@link #maxLabel} comes from the label column's metadata. */
  final boolean labelsFromMetadata;
  /**
   * Lays out the training rows, numbered by each worker's own features; null for rows only to
   * be scored (input order, the model's numbers). Validation rows keep the input order.
   */
  final VisitOrder order;
  /**
   * The rows stored with the validation rows instead of the training rows, never trained on
   * ({@link CalibrationRows#NONE} for data only to be scored, and with validation rows).
   */
  final CalibrationRows calibrationRows;
  /** The column of the row ids ({@link PartitionFacts#describeRow}): the last one. */
  final int rowIdIndex;
  final ChunkStore trainingChunks;
  final ChunkStore validationChunks;
  /**
   * Bytes per chunk ({@link EpochPlan#STORED_CHUNK_BYTES}; smaller in tests of several chunks).
   */
  final long chunkBytes;
  /** The storage level's name, for messages. */
  final String levelName;

  /**
   * @param expectedFeatures the vector size the features column's metadata declares, or −1
   * @param declaredClasses the classes the label column's metadata declares, or −1
   * @param forTraining whether the training rows are stored in the visit order's layout (else
   *     in input order: data only to be scored)
   */
  ConversionSpec(JavaSparkContext jsc, TrainingConfig config, int expectedFeatures,
      int declaredClasses, boolean forTraining) {
    this.labelCol = config.labelCol;
    this.featuresCol = config.featuresCol;
    this.weightCol = config.weightCol;
    this.validationCol = config.validationCol;
    this.expectedFeatures = expectedFeatures;
    this.maxLabel = (declaredClasses > 0 ? declaredClasses
        : TrainingInput.MAX_INFERRED_CLASSES) - 1;
    this.labelsFromMetadata = declaredClasses > 0;
    this.order = forTraining ? config.visitOrder() : null;
    this.calibrationRows = forTraining ? config.calibrationRows : CalibrationRows.NONE;
    this.rowIdIndex = 2 + (weightCol.isEmpty() ? 0 : 1) + (validationCol.isEmpty() ? 0 : 1);
    StorageLevel level = config.storageLevel();
    this.trainingChunks = ChunkStore.create(jsc, level);
    this.validationChunks = ChunkStore.create(jsc, level);
    this.levelName = config.storageLevelName();
    this.chunkBytes = config.chunkBytes() > 0 ? config.chunkBytes()
        : EpochPlan.STORED_CHUNK_BYTES;
  }

  /** This spec with {@code rows} as its calibration rows, and chunk stores of its own. */
  private ConversionSpec(ConversionSpec other, JavaSparkContext jsc, CalibrationRows rows,
      StorageLevel level) {
    this.labelCol = other.labelCol;
    this.featuresCol = other.featuresCol;
    this.weightCol = other.weightCol;
    this.validationCol = other.validationCol;
    this.expectedFeatures = other.expectedFeatures;
    this.maxLabel = other.maxLabel;
    this.labelsFromMetadata = other.labelsFromMetadata;
    this.order = other.order;
    this.calibrationRows = rows;
    this.rowIdIndex = other.rowIdIndex;
    this.trainingChunks = ChunkStore.create(jsc, level);
    this.validationChunks = ChunkStore.create(jsc, level);
    this.levelName = other.levelName;
    this.chunkBytes = other.chunkBytes;
  }

  /**
   * The spec of converting the same input again with {@code rows} as the calibration rows (a
   * training's rows, {@code level} the training's storage level), into chunks of its own.
   */
  ConversionSpec withCalibrationRows(JavaSparkContext jsc, CalibrationRows rows,
      StorageLevel level) {
    if (order == null || !validationCol.isEmpty()) {
      throw new IllegalStateException("calibration rows are held out of training rows only,"
          + " and only without validation rows");
    }
    return new ConversionSpec(this, jsc, rows, level);
  }

  /** A writer of {@code worker}'s training rows, {@code width} wide (−1: as wide as they are). */
  ChunkWriter trainingWriter(int worker, int width) {
    return new ChunkWriter(trainingChunks, worker, width, order, order != null, chunkBytes);
  }

  /** A writer of {@code worker}'s validation rows (input order, the model's numbers). */
  ChunkWriter validationWriter(int worker, int width) {
    return new ChunkWriter(validationChunks, worker, width, null, false, chunkBytes);
  }

  /** Bytes of this conversion's chunks the executors keep on local disk, now. */
  long diskBytes(JavaSparkContext jsc) {
    return trainingChunks.diskBytes(jsc) + validationChunks.diskBytes(jsc);
  }

  /** Removes every chunk of this conversion from every executor. */
  void removeChunks(JavaSparkContext jsc) {
    trainingChunks.remove(jsc);
    validationChunks.remove(jsc);
  }
}
