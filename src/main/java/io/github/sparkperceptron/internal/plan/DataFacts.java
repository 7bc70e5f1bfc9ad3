package io.github.sparkperceptron.internal.plan;

/**
 * What a training's plan needs to know of its data once the rows are read: how they lie over
 * the workers (rows, stored values, the largest worker's distinct features) and the two facts the
 * mixing settings take from them (the largest sample weight per class and the largest ‖x‖²,
 * which bound block momentum's norm growth). The blocks ({@code internal.blocks.TrainingInput})
 * gather them while converting the rows; the plan ({@link TrainingPlan#withData}) reads nothing
 * else of the data, so that it stands below the blocks.
 */
public final class DataFacts {
  /** Workers: training partitions, one perceptron each. */
  public final int numWorkers;
  /** Training rows (validation rows excluded). */
  public final long numRows;
  /** Stored values of the training rows (non-zeros of sparse rows, every value of dense ones). */
  public final long storedValues;
  /** m: the largest worker's distinct features, the size of its working copies. */
  public final long workerFeatures;
  public final int numClasses;
  /** The largest ‖x‖² of a training row. */
  public final double maxSquaredNorm;
  /** Bytes of every worker's cached chunks (training and validation rows). */
  public final long dataBytes;
  /** Bytes of the largest worker's training rows' chunks. */
  public final long workerBytes;
  private final double[] maxWeightByClass;

  /**
   * @param maxWeightByClass the largest sample weight of a training row per class (copied; may
   *     be shorter than {@code numClasses}: a class without rows weighs 0)
   */
  public DataFacts(int numWorkers, long numRows, long storedValues, long workerFeatures,
      int numClasses, double[] maxWeightByClass, double maxSquaredNorm) {
    this(numWorkers, numRows, storedValues, workerFeatures, numClasses, maxWeightByClass,
        maxSquaredNorm, new long[] {12 * storedValues + 16 * numRows,
            (12 * storedValues + 16 * numRows) / Math.max(1, numWorkers)});
  }

  /**
   * @param bytes the cached chunks' bytes: all workers' (training and validation rows), and the
   *     largest worker's training rows'
   */
  public DataFacts(int numWorkers, long numRows, long storedValues, long workerFeatures,
      int numClasses, double[] maxWeightByClass, double maxSquaredNorm, long[] bytes) {
    this.dataBytes = bytes[0];
    this.workerBytes = bytes[1];
    this.numWorkers = numWorkers;
    this.numRows = numRows;
    this.storedValues = storedValues;
    this.workerFeatures = workerFeatures;
    this.numClasses = numClasses;
    this.maxWeightByClass = maxWeightByClass.clone();
    this.maxSquaredNorm = maxSquaredNorm;
  }

  /** The largest sample weight of a training row of class {@code k} (0 without rows). */
  public double maxWeight(int k) {
    return k < maxWeightByClass.length ? maxWeightByClass[k] : 0.0;
  }
}
