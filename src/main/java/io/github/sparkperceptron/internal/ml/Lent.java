package io.github.sparkperceptron.internal.ml;

/**
 * One public package's internals, lent to the packages above it: Java's stand-in for Scala's
 * {@code private[sparkperceptron]}, as the JDK's {@code SharedSecrets} stands in for friend
 * packages. The lending package implements a bridge's abstract side in a package-private class
 * named {@code BridgeSide} whose static initializer calls {@link #lend}; the bridge
 * ({@link EngineBridge}, {@code internal.streaming.StreamingBridge}) holds one {@code Lent} and
 * reaches the side through {@link #get}, which initializes that class on first use.
 *
 * @param <T> the bridge's abstract side
 */
public final class Lent<T> {
  private final String lender;
  private volatile T side;

  /**
   * @param publicClass a public class of the lending package, which names the package; its
   *     {@code BridgeSide} class lends the side
   */
  public Lent(Class<?> publicClass) {
    this.lender = publicClass.getPackageName() + ".BridgeSide";
  }

  /**
   * Registers the side: the lender's static initializer does, once.
   *
   * @throws IllegalStateException when a side was registered already
   */
  public synchronized void lend(T lent) {
    if (side != null) {
      throw new IllegalStateException("the side of " + lender + " is registered already");
    }
    side = lent;
  }

  /** The lent side, its lender initialized first when no side is registered yet. */
  public T get() {
    T s = side;
    if (s == null) {
      try {
        Class.forName(lender, true, Lent.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException("no " + lender + " lends this package's internals", e);
      }
      s = side;
      if (s == null) {
        throw new IllegalStateException(lender + " did not lend its side when initialized");
      }
    }
    return s;
  }
}
