package io.github.sparkperceptron.internal.mixing;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * The weighted mean of the workers' changes, computed along one fixed binary tree over the
 * worker indices, so that the result is bit-identical whatever order Spark delivers the
 * workers in (task completion order, retries, {@code treeAggregate}'s shuffle).
 *
 * <p>Node (level ℓ, index i) covers workers [i·2^ℓ, (i+1)·2^ℓ). A node is combined with its
 * sibling as soon as both are present, left before right; a node whose sibling covers no worker
 * at all moves up unchanged. The root, at level ⌈log₂ W⌉ (W workers), is the result. Both {@link #add} and
 * {@link #merge} are therefore commutative and associative, which is what Spark's
 * {@code treeAggregate} assumes of its operators and floating-point sums do not deliver.
 *
 * <p>Memory: the pending nodes, at most one per worker (when workers arrive in the worst
 * order), typically a few when they arrive roughly in index order.
 */
public final class ParameterMix implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int numWorkers;
  private final int rootLevel;
  private final List<Node> pending = new ArrayList<>();

  private static final class Node implements Serializable {
    private static final long serialVersionUID = 1L;
    final int level;
    final int index;
    final WorkerResult result;

    Node(int level, int index, WorkerResult result) {
      this.level = level;
      this.index = index;
      this.result = result;
    }
  }

  /** An empty mix (the identity of {@link #merge}) for results of {@code numWorkers} workers. */
  public ParameterMix(int numWorkers) {
    if (numWorkers < 1) {
      throw new IllegalArgumentException("numWorkers must be >= 1, got " + numWorkers);
    }
    this.numWorkers = numWorkers;
    this.rootLevel = 32 - Integer.numberOfLeadingZeros(numWorkers - 1);
  }

  /** Adds one worker's result; returns this. */
  public ParameterMix add(WorkerResult result) {
    if (result.worker() < 0 || result.worker() >= numWorkers) {
      throw new IllegalArgumentException("worker " + result.worker() + " outside 0.."
          + (numWorkers - 1));
    }
    insert(new Node(0, result.worker(), result));
    return this;
  }

  /** Adds everything {@code other} holds; returns this. */
  public ParameterMix merge(ParameterMix other) {
    if (other.numWorkers != numWorkers) {
      throw new IllegalArgumentException("cannot merge mixes over " + numWorkers + " and "
          + other.numWorkers + " workers");
    }
    for (Node n : other.pending) {
      insert(n);
    }
    return this;
  }

  private void insert(Node node) {
    Node n = node;
    while (n.level < rootLevel) {
      int siblingIndex = n.index ^ 1;
      if (((long) siblingIndex << n.level) >= numWorkers) {
        n = new Node(n.level + 1, n.index >> 1, n.result);
        continue;
      }
      Node sibling = take(n.level, siblingIndex);
      if (sibling == null) {
        break;
      }
      Node left = (n.index & 1) == 0 ? n : sibling;
      Node right = left == n ? sibling : n;
      n = new Node(n.level + 1, n.index >> 1, left.result.absorb(right.result));
    }
    for (Node p : pending) {
      if (p.level == n.level && p.index == n.index) {
        throw new IllegalStateException("worker range at level " + n.level + ", index "
            + n.index + " delivered twice");
      }
    }
    pending.add(n);
  }

  private Node take(int level, int index) {
    for (int k = 0; k < pending.size(); k++) {
      Node p = pending.get(k);
      if (p.level == level && p.index == index) {
        pending.remove(k);
        return p;
      }
    }
    return null;
  }

  /** Whether every worker has been added. */
  public boolean isComplete() {
    return pending.size() == 1 && pending.get(0).level == rootLevel;
  }

  /**
   * The mixed result: delta = Σ_i μ_i·delta_i with μ_i = mixWeight_i / Σ mixWeight (the left-most
   * delta when every weight is zero, which happens only when no worker changed its weights),
   * stats summed per epoch.
   *
   * @throws IllegalStateException if some worker is missing
   */
  public WorkerResult result() {
    if (!isComplete()) {
      throw new IllegalStateException("mix is missing workers: " + pending.size()
          + " pending ranges over " + numWorkers + " workers");
    }
    return pending.get(0).result;
  }
}
