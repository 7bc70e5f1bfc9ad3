package io.github.sparkperceptron.internal.mixing;

import io.github.sparkperceptron.internal.kernel.SortedCoordinates;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * What one worker's mixing round changed in the learner state, or the μ-weighted mean of such
 * changes over a range of workers: δw (the weights' change) and δu (the averaging
 * accumulator's change, when averaging), at the coordinates that changed.
 *
 * <p>Two representations, chosen by density, with identical arithmetic: <b>sparse</b> (sorted
 * coordinate indices with their δw, δu; 4 + 8 + 8 bytes per changed coordinate) and <b>dense</b>
 * (one δw and one δu per coordinate; 16 bytes per coordinate). A perceptron update touches only
 * the non-zeros of a row (and only two of the K class rows), so on high-dimensional data a
 * worker's round changes a small part of the K·(d+1) state and its result costs O(changed
 * coordinates), not O(K·d).
 *
 * <p>Every operation treats a coordinate a sparse delta does not store as 0.0 and evaluates the
 * same expressions a dense delta evaluates, coordinate by coordinate; {@link #applyTo} skips
 * zeros. So a sparse and a dense delta holding the same changes mix and apply to bit-identical
 * states, whichever representation each side of a merge has.
 *
 * <p>A delta of a single worker may also carry the worker's new weights themselves
 * ({@code exactWeights}): w + (w_i − w) need not round back to w_i, and a training on one
 * worker must be the serial algorithm bit for bit, so that case takes the weights as they are.
 */
public final class StateDelta implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * By default a sparse delta is stored densely once it holds more than this share of the
   * coordinates: from there the index array costs more than skipping the absent coordinates
   * saves (BENCHMARKS.md measures the choice).
   */
  public static final double DENSE_ABOVE = 0.5;

  private final int length;
  /**
   * The share of coordinates above which this delta and the blends made from it are stored
   * densely (0: always dense; above 1: always sparse).
   */
  private final double denseAbove;
  /** Changed coordinates in increasing order, or {@code null} when dense. */
  private final int[] index;
  /** δw at {@link #index} (sparse) or at every coordinate (dense). */
  private final double[] dw;
  /** δu, aligned with {@link #dw}, or {@code null} when not averaging. */
  private final double[] du;
  /** The worker's new weights aligned with {@link #dw}, or {@code null}. */
  private final double[] exactWeights;

  private StateDelta(int length, int[] index, double[] dw, double[] du, double[] exactWeights,
      double denseAbove) {
    this.length = length;
    this.denseAbove = denseAbove;
    this.index = index;
    this.dw = dw;
    this.du = du;
    this.exactWeights = exactWeights;
  }

  /** No change to a state of {@code length} coordinates. */
  public static StateDelta none(int length, boolean averaging) {
    return new StateDelta(length, new int[0], new double[0], averaging ? new double[0] : null,
        null, DENSE_ABOVE);
  }

  /**
   * A sparse delta (arrays taken, not copied): {@code index} strictly increasing in
   * [0, length).
   */
  public static StateDelta sparse(int length, int[] index, double[] dw, double[] du) {
    requireAligned(index.length, dw, du);
    for (int k = 0; k < index.length; k++) {
      if (index[k] < 0 || index[k] >= length || (k > 0 && index[k] <= index[k - 1])) {
        throw new IllegalArgumentException("indices must increase strictly within [0, " + length
            + "); got " + index[k] + " at position " + k);
      }
    }
    return new StateDelta(length, index, dw, du, null, DENSE_ABOVE);
  }

  /** A dense delta (arrays taken, not copied). */
  public static StateDelta dense(double[] dw, double[] du) {
    requireAligned(dw.length, dw, du);
    return new StateDelta(dw.length, null, dw, du, null, DENSE_ABOVE);
  }

  private static void requireAligned(int n, double[] dw, double[] du) {
    if (dw.length != n || (du != null && du.length != n)) {
      throw new IllegalArgumentException("delta arrays differ in length: " + n + ", "
          + dw.length + (du == null ? "" : ", " + du.length));
    }
  }

  /**
   * The change a worker made: δw = w − base and δu = u at the {@code touched} coordinates
   * (increasing), where {@code u} accumulated from zero. Stored sparse or dense by density; with
   * {@code keepWeights} the new weights themselves travel along (a single worker's result).
   */
  public static StateDelta between(int[] touched, double[] w, double[] base, double[] u,
      boolean keepWeights) {
    return between(touched, w, base, u, keepWeights, DENSE_ABOVE);
  }

  /**
   * As {@link #between(int[], double[], double[], double[], boolean)}, stored densely above
   * {@code denseAbove} of the coordinates (0: always dense; above 1: always sparse), a choice
   * the blends made from this delta keep.
   */
  public static StateDelta between(int[] touched, double[] w, double[] base, double[] u,
      boolean keepWeights, double denseAbove) {
    return between(touched, touched, w, base, u, keepWeights, denseAbove);
  }

  /**
   * The change of a working copy kept in other coordinates than the state's (a worker's own
   * feature numbers and layout, {@code kernel.LocalWeights}): at the state coordinates
   * {@code touched} (increasing), δw = w[slot] − base[coordinate] and δu = u[slot], where
   * {@code slots[k]} is where the copy holds coordinate {@code touched[k]}. With the identity
   * ({@code slots == touched}) this is {@link #between(int[], double[], double[], double[],
   * boolean, double)}; the same expressions either way, so the same bits. The partition's new
   * weights (with {@code keepWeights}) are {@code base} outside {@code touched}: the copy started
   * the round equal to it there.
   */
  public static StateDelta between(int[] touched, int[] slots, double[] w, double[] base,
      double[] u, boolean keepWeights, double denseAbove) {
    if (slots.length != touched.length) {
      throw new IllegalArgumentException(touched.length + " coordinates but " + slots.length
          + " slots");
    }
    int n = base.length;
    if (touched.length > denseAbove * n) {
      double[] dw = new double[n];
      double[] du = u == null ? null : new double[n];
      double[] exact = null;
      if (keepWeights) {
        exact = slots == touched ? w.clone() : base.clone();
      }
      for (int k = 0; k < touched.length; k++) {
        int j = touched[k];
        int s = slots[k];
        dw[j] = w[s] - base[j];
        if (du != null) {
          du[j] = u[s];
        }
        if (exact != null && slots != touched) {
          exact[j] = w[s];
        }
      }
      return new StateDelta(n, null, dw, du, exact, denseAbove);
    }
    int m = touched.length;
    double[] dw = new double[m];
    double[] du = u == null ? null : new double[m];
    double[] exact = keepWeights ? new double[m] : null;
    for (int k = 0; k < m; k++) {
      int j = touched[k];
      int s = slots[k];
      dw[k] = w[s] - base[j];
      if (du != null) {
        du[k] = u[s];
      }
      if (exact != null) {
        exact[k] = w[s];
      }
    }
    return new StateDelta(n, touched.clone(), dw, du, exact, denseAbove);
  }

  /** Coordinates of the state this delta applies to. */
  public int length() {
    return length;
  }

  public boolean isDense() {
    return index == null;
  }

  /** Stored entries: changed coordinates when sparse, {@link #length()} when dense. */
  public int storedEntries() {
    return index == null ? length : index.length;
  }

  /** Whether δu travels (averaging). */
  public boolean hasAverage() {
    return du != null;
  }

  /** The coordinate of stored entry {@code k}. */
  public int coordinate(int k) {
    return index == null ? k : index[k];
  }

  /** The stored entries' coordinates, increasing, in a new array. */
  public int[] coordinates() {
    int[] out = new int[storedEntries()];
    for (int k = 0; k < out.length; k++) {
      out[k] = coordinate(k);
    }
    return out;
  }

  /** δw of stored entry {@code k}. */
  public double weightChange(int k) {
    return dw[k];
  }

  /** δu of stored entry {@code k} (0 when not averaging). */
  public double averageChange(int k) {
    return du == null ? 0.0 : du[k];
  }
  /** Bytes of the arrays this delta holds (what shipping it costs, before framing). */
  public long sizeInBytes() {
    long entries = storedEntries();
    return (index == null ? 0 : 4L * entries) + 8L * entries * (1 + (du == null ? 0 : 1)
        + (exactWeights == null ? 0 : 1));
  }

  /**
   * The coordinate-wise a + r·(b − a) of this (a) and {@code right} (b), absent coordinates being
   * 0.0: the running weighted mean of {@link WorkerResult#absorb}. Returns a new delta (never
   * with exact weights); sparse while the union of the coordinates stays sparse.
   */
  public StateDelta blend(StateDelta right, double r) {
    if (right.length != length || (right.du == null) != (du == null)) {
      throw new IllegalArgumentException("cannot blend deltas of different shapes");
    }
    if (index == null || right.index == null) {
      double[] a = denseWeights();
      double[] b = right.denseWeights();
      double[] au = du == null ? null : denseAverages();
      double[] bu = du == null ? null : right.denseAverages();
      for (int j = 0; j < length; j++) {
        a[j] = mix(a[j], b[j], r);
        if (au != null) {
          au[j] = mix(au[j], bu[j], r);
        }
      }
      return new StateDelta(length, null, a, au, null, denseAbove);
    }
    int[] ia = index;
    int[] ib = right.index;
    int union = SortedCoordinates.unionSize(ia, ib);
    if (union > denseAbove * length) {
      return toDense().blend(right, r);
    }
    int[] idx = new int[union];
    double[] w = new double[union];
    double[] u = du == null ? null : new double[union];
    int x = 0;
    int y = 0;
    for (int k = 0; k < union; k++) {
      int ja = x < ia.length ? ia[x] : Integer.MAX_VALUE;
      int jb = y < ib.length ? ib[y] : Integer.MAX_VALUE;
      int j = Math.min(ja, jb);
      double wa = 0.0;
      double wb = 0.0;
      double ua = 0.0;
      double ub = 0.0;
      if (ja == j) {
        wa = dw[x];
        ua = du == null ? 0.0 : du[x];
        x++;
      }
      if (jb == j) {
        wb = right.dw[y];
        ub = du == null ? 0.0 : right.du[y];
        y++;
      }
      idx[k] = j;
      w[k] = mix(wa, wb, r);
      if (u != null) {
        u[k] = mix(ua, ub, r);
      }
    }
    return new StateDelta(length, idx, w, u, null, denseAbove);
  }

  /** The one formula of a blend; both representations evaluate exactly this. */
  private static double mix(double a, double b, double r) {
    return a + r * (b - a);
  }

  /** This delta stored densely (this itself when it already is). */
  public StateDelta toDense() {
    if (index == null) {
      return this;
    }
    if (exactWeights != null) {
      throw new IllegalStateException("a delta with exact weights is applied, never densified");
    }
    return new StateDelta(length, null, denseWeights(), du == null ? null : denseAverages(),
        null, denseAbove);
  }
  private double[] denseWeights() {
    if (index == null) {
      return dw.clone();
    }
    double[] out = new double[length];
    for (int k = 0; k < index.length; k++) {
      out[index[k]] = dw[k];
    }
    return out;
  }

  private double[] denseAverages() {
    if (index == null) {
      return du.clone();
    }
    double[] out = new double[length];
    for (int k = 0; k < index.length; k++) {
      out[index[k]] = du[k];
    }
    return out;
  }

  /**
   * Applies the change to a state: w_j += δw_j and u_j += δu_j where they are non-zero (or, with
   * exact weights, w_j = the worker's weight at every stored coordinate). Returns the number
   * of weight coordinates written.
   *
   * @param u the averaging accumulator, or {@code null} when not averaging
   */
  public int applyTo(double[] w, double[] u) {
    if (w.length != length || (u != null && u.length != length)) {
      throw new IllegalArgumentException("a delta over " + length + " coordinates cannot apply"
          + " to a state of " + w.length);
    }
    int written = 0;
    int n = storedEntries();
    for (int k = 0; k < n; k++) {
      int j = index == null ? k : index[k];
      if (exactWeights != null) {
        w[j] = exactWeights[k];
        written++;
      } else if (dw[k] != 0.0) {
        w[j] += dw[k];
        written++;
      }
      if (u != null && du != null && du[k] != 0.0) {
        u[j] += du[k];
      }
    }
    return written;
  }

  /**
   * Bytes {@link #write} produces: a header (length, the dense-above share, flags, entries) and
   * the arrays as they are stored, so that {@link #read} rebuilds this delta exactly, bit for
   * bit and in the same representation (the wire format of the barrier rounds' exchange).
   */
  int serializedSize() {
    int n = storedEntries();
    return 4 + 8 + 1 + 4 + (index == null ? 0 : 4 * n)
        + 8 * n * (1 + (du == null ? 0 : 1) + (exactWeights == null ? 0 : 1));
  }

  /** Writes this delta at {@code out}'s position ({@link #serializedSize()} bytes). */
  void write(ByteBuffer out) {
    int n = storedEntries();
    int flags = (index == null ? 1 : 0) | (du == null ? 0 : 2) | (exactWeights == null ? 0 : 4);
    out.putInt(length).putDouble(denseAbove).put((byte) flags).putInt(n);
    if (index != null) {
      for (int k = 0; k < n; k++) {
        out.putInt(index[k]);
      }
    }
    putAll(out, dw, n);
    if (du != null) {
      putAll(out, du, n);
    }
    if (exactWeights != null) {
      putAll(out, exactWeights, n);
    }
  }

  private static void putAll(ByteBuffer out, double[] values, int n) {
    for (int k = 0; k < n; k++) {
      out.putDouble(values[k]);
    }
  }

  /**
   * The most bytes {@link #write} produces for a state of {@code length} coordinates: every
   * coordinate stored sparse (its index), with δw, δu and the exact weight.
   */
  static long maxSerializedSize(int length) {
    return HEADER_BYTES + 28L * length;
  }

  private static final int HEADER_BYTES = 4 + 8 + 1 + 4;

  /**
   * The delta {@link #write} wrote at {@code in}'s position, over {@code length} coordinates and
   * with averages exactly when {@code averaging}: every count is checked against the state's
   * length and the bytes left before an array is allocated, and the indices as {@link #sparse}
   * checks them, so a corrupted or hostile message can neither allocate more than it holds nor
   * write outside the state.
   *
   * @throws IllegalArgumentException for bytes that are not such a delta
   */
  static StateDelta read(ByteBuffer in, int length, boolean averaging) {
    if (in.remaining() < HEADER_BYTES) {
      throw new IllegalArgumentException("not a delta: " + in.remaining() + " bytes");
    }
    int declared = in.getInt();
    double denseAbove = in.getDouble();
    int flags = in.get();
    int n = in.getInt();
    boolean dense = (flags & 1) != 0;
    boolean hasAverage = (flags & 2) != 0;
    if (declared != length || (flags & ~7) != 0 || hasAverage != averaging || n < 0
        || (dense && n != length) || n > length || !(denseAbove >= 0.0)) {
      throw new IllegalArgumentException("not a delta of this state: " + n + " entries over "
          + declared + " coordinates (the state has " + length + "), flags " + flags);
    }
    int arrays = 1 + (hasAverage ? 1 : 0) + ((flags & 4) != 0 ? 1 : 0);
    long needed = (dense ? 0L : 4L * n) + 8L * arrays * n;
    if (needed > in.remaining()) {
      throw new IllegalArgumentException("not a delta: " + n + " entries need " + needed
          + " bytes, the message holds " + in.remaining());
    }
    int[] idx = null;
    if (!dense) {
      idx = new int[n];
      for (int k = 0; k < n; k++) {
        idx[k] = in.getInt();
        if (idx[k] < 0 || idx[k] >= length || (k > 0 && idx[k] <= idx[k - 1])) {
          throw new IllegalArgumentException("not a delta: index " + idx[k] + " at position " + k
              + " of " + length + " coordinates");
        }
      }
    }
    double[] w = getAll(in, n);
    double[] u = hasAverage ? getAll(in, n) : null;
    double[] exact = (flags & 4) != 0 ? getAll(in, n) : null;
    return new StateDelta(length, idx, w, u, exact, denseAbove);
  }

  private static double[] getAll(ByteBuffer in, int n) {
    double[] out = new double[n];
    for (int k = 0; k < n; k++) {
      out[k] = in.getDouble();
    }
    return out;
  }

  @Override
  public String toString() {
    return "StateDelta{" + (index == null ? "dense" : "sparse " + index.length) + " of " + length
        + (index == null ? "" : ", first " + Arrays.toString(Arrays.copyOf(index,
            Math.min(5, index.length)))) + "}";
  }
}
