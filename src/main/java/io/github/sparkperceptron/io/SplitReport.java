package io.github.sparkperceptron.io;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * What a reader's check pass learns from one input split, and the driver's verdict on all of
 * them: the earliest bad line in file order is an error, then an input without examples, then
 * the earliest bad label (once it is known whether −1/+1 is mapped).
 */
final class SplitReport implements Serializable {
  private static final long serialVersionUID = 1L;

  long rows;
  /** The largest 0-based feature index seen (LIBSVM), or −1. */
  int maxIndex = -1;
  /** The size of the first feature vector seen (Parquet), or −1. */
  int vectorSize = -1;
  Problem firstBadLine;
  final LabelCheck labels = new LabelCheck();

  /**
   * What the driver knows once every split is checked.
   *
   * @param rows the examples in all splits
   * @param maxIndex the largest 0-based feature index seen (LIBSVM), or −1
   * @param mapPlusMinusOne whether labels −1/+1 are read as 0/1
   */
  record Verdict(long rows, int maxIndex, boolean mapPlusMinusOne) {

    String labelNote() {
      return mapPlusMinusOne ? LabelCheck.MAPPED_NOTE : "";
    }
  }

  /**
   * Combines the reports or throws the earliest problem in file order.
   *
   * @param path the path the user gave, for the message about an input without examples
   * @param suffix appended to located messages, e.g. " (training data (--train), CSV format)"
   */
  static Verdict combine(Configuration conf, List<SplitReport> reports, ReadSpec spec,
      String path, String role, String suffix) {
    long rows = 0;
    int maxIndex = -1;
    List<LabelCheck> labels = new ArrayList<>();
    Problem firstBad = null;
    for (SplitReport r : reports) {
      firstBad = Problem.earlier(firstBad, r.firstBadLine);
    }
    if (firstBad != null) {
      throw firstBad.toException(conf, suffix);
    }
    for (SplitReport r : reports) {
      rows += r.rows;
      maxIndex = Math.max(maxIndex, r.maxIndex);
      labels.add(r.labels);
    }
    if (rows == 0) {
      throw ReaderSupport.noExamples(role, path);
    }
    if (!spec.labelsChecked()) {
      return new Verdict(rows, maxIndex, false);
    }
    Problem badLabel = LabelCheck.firstError(labels);
    if (badLabel != null) {
      throw badLabel.toException(conf, suffix);
    }
    return new Verdict(rows, maxIndex, LabelCheck.mapsPlusMinusOne(labels));
  }
}
