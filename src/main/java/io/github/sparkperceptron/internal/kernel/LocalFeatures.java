package io.github.sparkperceptron.internal.kernel;

import java.io.Serializable;
import java.util.Arrays;

/**
 * A worker's own feature numbers: the m features its block actually holds, numbered 0 .. m−1 in
 * increasing global order, and the map back to the global numbers 0 .. d−1.
 *
 * <p>Because the map is monotone, a row's entries keep their order under it, so every dot product
 * and update of the kernel adds the same products in the same order over local arrays as over
 * global ones: the results are bit for bit the same, while the arrays a worker trains on shrink
 * from K'·(d+1) to K'·(m+1) values (with m at most min(d, the block's stored values)). Hashed text
 * features at d = 2^24 with a few thousand distinct features per worker thus train on arrays that
 * fit the caches instead of two 128 MiB arrays with one page walk per touch.
 *
 * <p>Costs 4 bytes per local feature; {@link #local} is a binary search (O(log m)), used only at
 * the exchange boundary ({@link LocalWeights}), never per row.
 */
public final class LocalFeatures implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int globalFeatures;
  /** The global number of each local feature; null for the identity over all d features. */
  private final int[] globalIndex;

  /**
   * @param globalFeatures d, the model's number of features
   * @param globalIndex the global number of each local feature, strictly increasing in
   *     [0, d) (taken, not copied)
   */
  public LocalFeatures(int globalFeatures, int[] globalIndex) {
    if (globalFeatures < 0) {
      throw new IllegalArgumentException("globalFeatures must be >= 0, got " + globalFeatures);
    }
    for (int l = 0; l < globalIndex.length; l++) {
      int g = globalIndex[l];
      if (g < 0 || g >= globalFeatures || (l > 0 && g <= globalIndex[l - 1])) {
        throw new IllegalArgumentException("local feature " + l + " maps to " + g
            + ": the map must increase strictly within [0, " + globalFeatures + ")");
      }
    }
    this.globalFeatures = globalFeatures;
    this.globalIndex = globalIndex;
  }

  private LocalFeatures(int globalFeatures) {
    this.globalFeatures = globalFeatures;
    this.globalIndex = null;
  }

  /** The same map into a wider model (the array shared; it stays valid below any wider d). */
  private LocalFeatures(int globalFeatures, int[] globalIndex, boolean checked) {
    this.globalFeatures = globalFeatures;
    this.globalIndex = globalIndex;
  }

  /**
   * This map into a model of {@code width} ≥ d features: the same local features at the same
   * global numbers (a worker's rows read before the input's width was known).
   */
  public LocalFeatures atGlobalWidth(int width) {
    if (width < globalFeatures) {
      throw new IllegalArgumentException("cannot narrow a map of " + globalFeatures
          + " features to " + width);
    }
    return width == globalFeatures ? this : globalIndex == null
        ? new LocalFeatures(width, identityArray(globalFeatures), true)
        : new LocalFeatures(width, globalIndex, true);
  }

  private static int[] identityArray(int n) {
    int[] all = new int[n];
    for (int j = 0; j < n; j++) {
      all[j] = j;
    }
    return all;
  }

  /**
   * The identity over d features: a dense block keeps every column, and a worker whose rows
   * span several chunks and most of d numbers them by the model's features. Holds no array.
   */
  public static LocalFeatures identity(int numFeatures) {
    if (numFeatures < 0) {
      throw new IllegalArgumentException("globalFeatures must be >= 0, got " + numFeatures);
    }
    return new LocalFeatures(numFeatures);
  }

  /** No feature of d: the map of a worker without training rows (its copy holds the biases). */
  public static LocalFeatures none(int numFeatures) {
    return new LocalFeatures(numFeatures, new int[0]);
  }

  /**
   * Renumbers {@code indices[0 .. count)} (global feature numbers below {@code globalFeatures}) in
   * place to the local numbers of the distinct features among them, and returns the map. With at
   * least one stored value per 64 features: O(count + d/64) time and d/8 + d/16 bytes of scratch
   * (a bit per feature and a rank per 64), far below the 8·d bytes of the weights the map saves;
   * sparser blocks (a LIBSVM file naming feature 300,000,000 in a few rows) sort a copy of their
   * indices instead, O(count·log count) time and 4·count bytes, so that no scratch grows with d.
   */
  public static LocalFeatures renumber(int globalFeatures, int[] indices, int count) {
    int words = (int) ((globalFeatures + 63L) >>> 6);
    if (count < words) {
      return renumberBySorting(globalFeatures, indices, count);
    }
    long[] present = new long[words];
    for (int t = 0; t < count; t++) {
      int g = indices[t];
      present[g >>> 6] |= 1L << g;
    }
    int[] rankBefore = new int[words];
    int m = 0;
    for (int word = 0; word < words; word++) {
      rankBefore[word] = m;
      m += Long.bitCount(present[word]);
    }
    int[] globalIndex = new int[m];
    int l = 0;
    for (int word = 0; word < words; word++) {
      long b = present[word];
      while (b != 0) {
        globalIndex[l++] = (word << 6) + Long.numberOfTrailingZeros(b);
        b &= b - 1;
      }
    }
    for (int t = 0; t < count; t++) {
      int g = indices[t];
      indices[t] = rankBefore[g >>> 6] + Long.bitCount(present[g >>> 6] & ((1L << g) - 1));
    }
    return new LocalFeatures(globalFeatures, globalIndex);
  }

  private static LocalFeatures renumberBySorting(int globalFeatures, int[] indices, int count) {
    int[] sorted = Arrays.copyOf(indices, count);
    Arrays.sort(sorted);
    int m = 0;
    for (int t = 0; t < count; t++) {
      if (t == 0 || sorted[t] != sorted[t - 1]) {
        sorted[m++] = sorted[t];
      }
    }
    int[] globalIndex = Arrays.copyOf(sorted, m);
    for (int t = 0; t < count; t++) {
      indices[t] = Arrays.binarySearch(globalIndex, indices[t]);
    }
    return new LocalFeatures(globalFeatures, globalIndex);
  }

  /** m: the worker's features. */
  public int size() {
    return globalIndex == null ? globalFeatures : globalIndex.length;
  }

  /** d: the model's features. */
  public int globalFeatures() {
    return globalFeatures;
  }

  /** The global number of local feature {@code l}. */
  public int global(int l) {
    return globalIndex == null ? l : globalIndex[l];
  }

  /** The local number of global feature {@code g}, or −1 when the worker does not have it. */
  public int local(int g) {
    if (globalIndex == null) {
      return g >= 0 && g < globalFeatures ? g : -1;
    }
    int l = Arrays.binarySearch(globalIndex, g);
    return l >= 0 ? l : -1;
  }

  /**
   * The local number of global feature {@code g} searched from local number {@code from} on,
   * every feature before {@code from} being known to be below {@code g}: as
   * {@link java.util.Arrays#binarySearch} (the number, or −(insertion point) − 1), found by
   * galloping from {@code from}, so that features looked up in increasing order cost
   * O(log gap) each, not O(log m): a round's refresh of millions of coordinates stays a walk
   * along the map.
   */
  public int search(int g, int from) {
    if (globalIndex == null) {
      return g >= 0 && g < globalFeatures ? g : -(Math.max(0, Math.min(g, globalFeatures))) - 1;
    }
    int n = globalIndex.length;
    // A few steps along the map first: lookups in increasing order mostly land near.
    int near = Math.min(n, from + 8);
    for (int k = from; k < near; k++) {
      int v = globalIndex[k];
      if (v >= g) {
        return v == g ? k : -k - 1;
      }
    }
    if (near == n) {
      return -n - 1;
    }
    from = near;
    int bound = 1;
    while (from + bound < n && globalIndex[from + bound] < g) {
      bound <<= 1;
    }
    return Arrays.binarySearch(globalIndex, from + (bound >> 1), Math.min(from + bound + 1, n), g);
  }

  /**
   * Whether {@code other} maps the same local features to the same global ones (a block read
   * back from Spark's cache is another object with the same map). O(m) unless it is this map.
   */
  public boolean sameAs(LocalFeatures other) {
    return other == this || (other != null && other.globalFeatures == globalFeatures
        && other.size() == size() && (globalIndex == null || other.globalIndex == null
            ? isIdentity() && other.isIdentity() : Arrays.equals(other.globalIndex, globalIndex)));
  }

  /** Bytes of the map. */
  public long sizeInBytes() {
    return globalIndex == null ? 0 : 4L * globalIndex.length;
  }

  /** Whether local feature l is global feature l for every l of d. */
  public boolean isIdentity() {
    return globalIndex == null || (globalIndex.length == globalFeatures
        && (globalFeatures == 0 || globalIndex[globalFeatures - 1] == globalFeatures - 1));
  }
}
