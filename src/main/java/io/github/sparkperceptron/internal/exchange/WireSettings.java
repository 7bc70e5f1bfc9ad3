package io.github.sparkperceptron.internal.exchange;

import java.io.Serializable;
import java.security.SecureRandom;

/**
 * What every end of one training's barrier exchange must agree on: the training's secret, whether
 * frames are sealed (encrypted and authenticated) and how long connecting and a silent peer may
 * take. Made once per fit on the driver ({@link #create}); it reaches the tasks inside their
 * closure, through Spark's own RPC, which authenticates and encrypts it when the operator turned
 * Spark's security on ({@code spark.authenticate}, {@code spark.network.crypto.enabled}). The
 * secret itself never crosses the exchange's sockets: connections prove they hold it by challenge
 * and response ({@link Handshake}).
 */
public final class WireSettings implements Serializable {
  private static final long serialVersionUID = 1L;
  /** Bytes of the secret: 256 bits, the key size of HMAC-SHA256 and AES-256. */
  static final int SECRET_BYTES = 32;

  final byte[] secret;
  final boolean sealed;
  final int connectTimeoutMillis;
  final int livenessMillis;

  WireSettings(byte[] secret, boolean sealed, int connectTimeoutMillis, int livenessMillis) {
    if (secret.length != SECRET_BYTES) {
      throw new IllegalArgumentException("a secret of " + secret.length + " bytes, not "
          + SECRET_BYTES);
    }
    if (connectTimeoutMillis <= 0 || livenessMillis <= 0) {
      throw new IllegalArgumentException("timeouts must be positive: connect "
          + connectTimeoutMillis + " ms, liveness " + livenessMillis + " ms");
    }
    this.secret = secret.clone();
    this.sealed = sealed;
    this.connectTimeoutMillis = connectTimeoutMillis;
    this.livenessMillis = livenessMillis;
  }

  /**
   * A fresh training's settings, with a new random secret.
   *
   * @param sealed whether every frame after the handshake is sealed with AES-256-GCM
   * @param connectTimeoutMillis how long a connection may take to be set up (the TCP connect and
   *     the handshake, on both sides, with retries on the connecting side)
   * @param livenessMillis how long an established connection may stay silent at the TCP level
   *     (keep-alive probes unanswered) before its peer's host counts as gone
   */
  public static WireSettings create(boolean sealed, int connectTimeoutMillis,
      int livenessMillis) {
    byte[] secret = new byte[SECRET_BYTES];
    new SecureRandom().nextBytes(secret);
    return new WireSettings(secret, sealed, connectTimeoutMillis, livenessMillis);
  }

  /** Whether frames are sealed with AES-256-GCM. */
  public boolean sealed() {
    return sealed;
  }

  /** No secret in logs. */
  @Override
  public String toString() {
    return "WireSettings{sealed=" + sealed + ", connect " + connectTimeoutMillis + " ms, liveness "
        + livenessMillis + " ms}";
  }
}
