package io.github.sparkperceptron.internal.io;

import java.io.Serializable;
import java.util.List;
import java.util.function.Function;

/**
 * The label rule every reader applies when labels are checked: labels are class indices 0, 1,
 * ..., K−1 (below the model's K when a model is given), except that input whose labels are all −1
 * or +1 is read with −1 mapped to 0 and +1 to 1, the usual binary LIBSVM convention. Whether the
 * mapping applies is known only after every row is seen, so each partition records what it saw
 * and its first label that is not a class index, and the driver decides.
 */
final class LabelCheck implements Serializable {
  private static final long serialVersionUID = 1L;

  boolean sawMinusOne;
  boolean sawOtherThanPlusMinusOne;
  /** The earliest label in file order that is not a class index (negative, fractional, too large). */
  Problem firstBadLabel;

  /**
   * Why {@code label} is not a class index (a phrase to follow the label), or {@code null}.
   *
   * @param numClasses the model's number of classes, or −1
   */
  static String classIndexProblem(double label, int numClasses) {
    if (label < 0 || label != Math.rint(label)) {
      return "is not a class index 0, 1, ..., K-1 (only input whose labels are all -1/+1 is"
          + " mapped to 0/1)";
    }
    if (numClasses > 0 && label >= numClasses) {
      return "is not a class of the model, which has " + numClasses + " classes (0.."
          + (numClasses - 1) + ")";
    }
    return null;
  }

  /**
   * Records one label.
   *
   * @param badLabel the problem to report if this label is not a class index and the mapping
   *     turns out not to apply; built only when needed
   */
  void observe(double label, int numClasses, Function<String, Problem> badLabel) {
    String why = observe(label, numClasses);
    if (why != null) {
      badLabel(badLabel.apply(why));
    }
  }

  /**
   * Records one label, for readers that build the problem themselves (without a function object
   * per row).
   *
   * @return why {@code label} is not a class index, or {@code null}; then give the problem to
   *     {@link #badLabel}
   */
  String observe(double label, int numClasses) {
    if (label == -1.0) {
      sawMinusOne = true;
    } else if (label != 1.0) {
      sawOtherThanPlusMinusOne = true;
    }
    return classIndexProblem(label, numClasses);
  }

  /** Records a label that is not a class index, unless an earlier one is known. */
  void badLabel(Problem found) {
    // Text splits arrive in order, so keeping the first is enough there; Parquet rows do not.
    firstBadLabel = Problem.earlier(firstBadLabel, found);
  }

  /** Adds {@code other}'s record (a later split of the same worker) to this one. */
  void add(LabelCheck other) {
    sawMinusOne |= other.sawMinusOne;
    sawOtherThanPlusMinusOne |= other.sawOtherThanPlusMinusOne;
    firstBadLabel = Problem.earlier(firstBadLabel, other.firstBadLabel);
  }

  /**
   * The class index an example with {@code label} gets before every label has been seen, or −1
   * when the input will be refused whatever the rest holds: −1 becomes class 0 (all that it can
   * mean once the input is accepted: the −1/+1 mapping applies, since a −1 in any other input is
   * an error), a class index stays itself (+1 is class 1 under the mapping too).
   *
   * @param numClasses the model's number of classes, or −1
   */
  static int provisionalClass(double label, int numClasses) {
    if (label == -1.0) {
      return 0;
    }
    return classIndexProblem(label, numClasses) == null ? (int) label : -1;
  }

  /**
   * Decides, from every partition's record, whether −1/+1 is mapped to 0/1; the
   * first bad label is an error when it is not.
   *
   * @return the bad label's problem, or {@code null} when the labels are fine
   */
  static Problem firstError(List<LabelCheck> checks) {
    if (mapsPlusMinusOne(checks)) {
      return null;
    }
    Problem first = null;
    for (LabelCheck c : checks) {
      first = Problem.earlier(first, c.firstBadLabel);
    }
    return first;
  }

  /** Whether the labels seen are all −1 or +1, with at least one −1. */
  static boolean mapsPlusMinusOne(List<LabelCheck> checks) {
    boolean minusOne = false;
    for (LabelCheck c : checks) {
      if (c.sawOtherThanPlusMinusOne) {
        return false;
      }
      minusOne |= c.sawMinusOne;
    }
    return minusOne;
  }

  /** The label a row gets. */
  static double mapped(double label, boolean mapPlusMinusOne) {
    return mapPlusMinusOne ? (label > 0 ? 1.0 : 0.0) : label;
  }

  static final String MAPPED_NOTE = "labels -1/+1 mapped to 0/1";
}
