package io.github.sparkperceptron.internal.io;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * What a reader's check pass learns from one input split (or, merged, from the splits one worker
 * reads), and the driver's verdict on all of them: the earliest header row that differs from the
 * first file's (CSV) is an error, then the earliest bad line in file order, then an input without
 * examples, then the earliest bad label (once it is known whether −1/+1 is mapped), then the
 * earliest example the one-pass reader's {@link RowSink} refused. Public only so that the engine
 * can carry it from a task to the driver; its contents are the readers'.
 */
public final class SplitReport implements Serializable {
  private static final long serialVersionUID = 1L;

  long rows;
  /** The largest 0-based feature index seen (LIBSVM), or −1. */
  int maxIndex = -1;
  /** The size of the first feature vector seen (Parquet), or −1. */
  int vectorSize = -1;
  Problem firstBadLine;
  final LabelCheck labels = new LabelCheck();
  /** A CSV file's header row that differs from the first file's, or {@code null}. */
  Problem badHeader;
  /** The first example a {@link RowSink} refused, or {@code null}. */
  Problem refusedRow;
  /** Whether a one-pass read stopped sending examples before its last line (after a problem). */
  boolean incomplete;

  /** Adds {@code other}'s findings (another split of the same worker) to this report. */
  void add(SplitReport other) {
    rows += other.rows;
    maxIndex = Math.max(maxIndex, other.maxIndex);
    vectorSize = vectorSize >= 0 ? vectorSize : other.vectorSize;
    firstBadLine = Problem.earlier(firstBadLine, other.firstBadLine);
    badHeader = Problem.earlier(badHeader, other.badHeader);
    refusedRow = Problem.earlier(refusedRow, other.refusedRow);
    labels.add(other.labels);
    incomplete |= other.incomplete;
  }

  /**
   * Whether the one-pass read that made this report stopped sending examples to its sink early,
   * which it does only once the input can no longer be accepted: what the sink built is to be
   * dropped.
   */
  public boolean isIncomplete() {
    return incomplete;
  }

  /** Whether the data cannot be accepted whatever the other splits hold. */
  boolean isRefused() {
    return badHeader != null || firstBadLine != null || refusedRow != null;
  }

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
    Problem badHeader = null;
    Problem refused = null;
    for (SplitReport r : reports) {
      firstBad = Problem.earlier(firstBad, r.firstBadLine);
      badHeader = Problem.earlier(badHeader, r.badHeader);
      refused = Problem.earlier(refused, r.refusedRow);
    }
    if (badHeader != null) {
      throw badHeader.toException(conf, suffix);
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
    if (refused != null) {
      throw refused.toException(conf, suffix);
    }
    return new Verdict(rows, maxIndex, LabelCheck.mapsPlusMinusOne(labels));
  }
}
