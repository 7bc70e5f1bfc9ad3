package io.github.sparkperceptron.internal.drift;

/**
 * A change detector on the prequential error stream of an online learner: fed, in arrival order,
 * whether each row was misclassified by the model as it stood before learning the row (1) or not
 * (0), it reports when the error rate has gone up.
 *
 * <pre>
 * Gama, Žliobaitė, Bifet, Pechenizkiy &amp; Bouchachia, "A Survey on Concept Drift Adaptation",
 *   ACM Computing Surveys 46(4), 2014: detectors on the learner's error stream, section 3.2.
 * Page, "Continuous Inspection Schemes", Biometrika 41, 1954            (PageHinkley)
 * Bifet &amp; Gavaldà, "Learning from Time-Changing Data with Adaptive
 *   Windowing", SIAM SDM 2007                                           (Adwin)
 * </pre>
 *
 * <p><b>One value per row.</b> Both tests are defined on a sequence of observations, with their
 * thresholds in units of one observation (Page-Hinkley's δ and λ; ADWIN's cut bound over
 * sub-window sizes), and their guarantees (ADWIN's false-alarm bound, Page-Hinkley's delay
 * λ / (jump − δ)) are stated per observation. A micro-batch gives its row count and its mistake
 * count, not an order: every row of it was scored by the same model, so its errors are
 * exchangeable. {@link #addBatch(long, long)} therefore feeds the batch as that many rows with its
 * mistakes spread evenly over them (Bresenham's rule: after i rows, exactly ⌊i·mistakes/rows⌋ of
 * them were mistakes), a deterministic order that invents no change inside the batch. Feeding one
 * value per batch instead (its error rate) would make the detectors' units depend on the batch
 * size and leave Page-Hinkley a handful of observations per stream.
 *
 * <p><b>Only increases are drift.</b> A falling error rate is the learner learning; reporting it
 * would make a {@code reset} policy throw away a model that is improving. ADWIN still shrinks its
 * window when the error falls (its estimate must follow the stream), but reports a detection only
 * when a cut drops an older stretch whose error was lower than the rest.
 *
 * <p>Implementations are deterministic (the same values in the same order give the same
 * detections, bit for bit), allocate nothing per row, and are not thread-safe.
 */
public interface DriftDetector {

  /** The detector's name as the {@code driftDetector} param spells it. */
  String name();

  /**
   * Feeds one row's error: 1 for a mistake, 0 for a correct prediction (any value in [0, 1] is
   * accepted, e.g. a weighted error).
   *
   * @return whether a drift (an increase of the error rate) is detected at this row
   * @throws IllegalArgumentException for a value outside [0, 1] (NaN included)
   */
  boolean add(double error);

  /**
   * Feeds a micro-batch of {@code rows} rows of which {@code mistakes} were misclassified, as
   * {@code rows} calls of {@link #add(double)} with the mistakes spread evenly (see the class
   * documentation). Costs O(rows) time and no allocation.
   *
   * @return the number of detections inside the batch (0 when none)
   * @throws IllegalArgumentException unless 0 ≤ mistakes ≤ rows
   */
  default int addBatch(long rows, long mistakes) {
    if (rows < 0 || mistakes < 0 || mistakes > rows) {
      throw new IllegalArgumentException("A batch needs 0 <= mistakes <= rows, got " + mistakes
          + " mistakes in " + rows + " rows");
    }
    int detected = 0;
    long carried = 0;
    for (long i = 0; i < rows; i++) {
      carried += mistakes;
      boolean mistake = carried >= rows;
      if (mistake) {
        carried -= rows;
      }
      if (add(mistake ? 1.0 : 0.0)) {
        detected++;
      }
    }
    return detected;
  }

  /** Rows fed since the detector was created (across encode/decode). */
  long rows();

  /** Drifts detected since the detector was created. */
  long detections();

  /** The 0-based row (counted as {@link #rows()} counts) of the last detection, or −1. */
  long lastDetectionRow();

  /** The detector's running estimate of the current error rate. */
  double errorRate();

  /**
   * The detector's whole state (settings, statistics, counters) as a compact array that
   * {@link DriftDetectors#decode(double[])} turns back into a detector that continues bit for bit
   * as this one would. Integers are stored as doubles (exact below 2^53).
   */
  double[] encode();
}
