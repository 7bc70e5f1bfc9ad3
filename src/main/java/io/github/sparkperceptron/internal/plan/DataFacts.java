package io.github.sparkperceptron.internal.plan;

/**
 * What a training's plan needs to know of its data once the rows are read: how they lie over
 * the workers (rows, stored values, the largest worker's distinct features, the cached chunks'
 * bytes) and the two facts the mixing settings take from them (the largest sample weight per
 * class and the largest ‖x‖², which bound block momentum's norm growth). The blocks
 * ({@code internal.blocks.TrainingInput}) gather them while converting the rows; the plan
 * ({@link TrainingPlan#withData}) reads nothing else of the data, so that it stands below the
 * blocks.
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

  private DataFacts(Builder b) {
    this.numWorkers = b.numWorkers;
    this.numRows = b.numRows;
    this.storedValues = b.storedValues;
    this.workerFeatures = b.workerFeatures;
    this.numClasses = b.numClasses;
    this.maxWeightByClass = b.maxWeightByClass.clone();
    this.maxSquaredNorm = b.maxSquaredNorm;
    // Without the chunks' own count: a CSR estimate (12 bytes per value, 16 per row).
    long estimate = 12 * b.storedValues + 16 * b.numRows;
    this.dataBytes = b.dataBytes >= 0 ? b.dataBytes : estimate;
    this.workerBytes = b.workerBytes >= 0 ? b.workerBytes
        : estimate / Math.max(1, b.numWorkers);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The largest sample weight of a training row of class {@code k} (0 without rows). */
  public double maxWeight(int k) {
    return k < maxWeightByClass.length ? maxWeightByClass[k] : 0.0;
  }

  /** Collects the facts; what is not set is 0 (the bytes: estimated from the values). */
  public static final class Builder {
    private int numWorkers;
    private long numRows;
    private long storedValues;
    private long workerFeatures;
    private int numClasses = 2;
    private double[] maxWeightByClass = new double[0];
    private double maxSquaredNorm;
    private long dataBytes = -1;
    private long workerBytes = -1;

    private Builder() {
    }

    /**
     * W workers holding {@code rows} training rows of {@code storedValues} stored values, the
     * largest worker {@code workerFeatures} distinct features.
     */
    public Builder rows(int workers, long rows, long storedValues, long workerFeatures) {
      this.numWorkers = workers;
      this.numRows = rows;
      this.storedValues = storedValues;
      this.workerFeatures = workerFeatures;
      return this;
    }

    /**
     * K classes, the largest sample weight of each class (may be shorter than K: a class without
     * rows weighs 0; copied) and the largest ‖x‖².
     */
    public Builder classes(int classes, double[] maxWeightPerClass, double maxSquaredNormOfRows) {
      this.numClasses = classes;
      this.maxWeightByClass = maxWeightPerClass;
      this.maxSquaredNorm = maxSquaredNormOfRows;
      return this;
    }

    /** The cached chunks' bytes: all workers' rows, and the largest worker's training rows. */
    public Builder bytes(long allData, long largestWorker) {
      this.dataBytes = allData;
      this.workerBytes = largestWorker;
      return this;
    }

    public DataFacts build() {
      return new DataFacts(this);
    }
  }
}
