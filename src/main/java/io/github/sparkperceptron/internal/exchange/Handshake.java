package io.github.sparkperceptron.internal.exchange;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.function.BooleanSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The mutual challenge and response every connection of the barrier exchange starts with: both
 * ends prove they hold the training's secret ({@link WireSettings}) without sending it, each
 * with a fresh random nonce, so a recorded handshake is worth nothing on another connection, and
 * both derive the connection's keys from the secret and the two nonces. Built from the JDK's
 * HMAC-SHA256 (RFC 2104) and HKDF (RFC 5869) over it, as Spark's own {@code AuthEngine} derives
 * its keys; no cipher of our own.
 *
 * <pre>
 * client → server  hello     = magic ‖ purpose ‖ sealed ‖ Nc          (38 bytes, Nc 32 random)
 * server → client  challenge = Ns ‖ HMAC(K_proof, "server")            (64 bytes, Ns 32 random)
 * client → server  proof     = HMAC(K_proof, "client")                 (32 bytes)
 * server → client  accepted  = 0x01                                   (1 byte)
 *   PRK = HMAC(salt = hello ‖ Ns, secret)                              (HKDF-Extract)
 *   K_label = HMAC(PRK, "spark-perceptron barrier 1 " ‖ label ‖ 0x01)  (HKDF-Expand, 32 bytes)
 *   K_proof, K_client→server, K_server→client                         ({@link Session})
 * </pre>
 *
 * The client sends nothing else until the server accepted its proof, so a connection the server
 * closed before reading the proof (a flood made room, {@link Gate}) is seen by the client, which
 * tries again, instead of a registration lost on the way. Each frame travels length-prefixed ({@link Frames}), the lengths fixed, so neither end reads
 * more than a few dozen bytes from an end it has not authenticated. The server answers only a
 * well-formed hello and proves itself first, so a task never sends its proof, let alone its
 * registration or changes, to a server that does not hold the secret (an impostor on a fixed
 * rendezvous port); the labels keep one end's proof from serving as the other's (reflection).
 * The purpose (rendezvous or peer link) and the sealing flag are bound into the keys: a
 * handshake meant for one cannot complete at the other, nor with the two ends disagreeing.
 */
final class Handshake {
  /** "SPB1": spark-perceptron barrier, version 1. */
  static final int MAGIC = 0x53504231;
  /** A task registering at the driver's rendezvous. */
  static final byte RENDEZVOUS = 1;
  /** A task connecting to its parent in the tree. */
  static final byte PEER = 2;
  static final int NONCE_BYTES = 32;
  static final int MAC_BYTES = 32;
  static final int HELLO_BYTES = 4 + 1 + 1 + NONCE_BYTES;
  static final int CHALLENGE_BYTES = NONCE_BYTES + MAC_BYTES;
  static final int PROOF_BYTES = MAC_BYTES;
  static final int ACCEPTED_BYTES = 1;
  private static final String HMAC = "HmacSHA256";
  private static final SecureRandom RANDOM = new SecureRandom();

  private Handshake() {
  }

  /** A handshake that failed on the other end's account: retrying it would fail again. */
  static final class Refused extends IOException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  /** The keys of one connection. */
  private static final class Keys {
    final byte[] proof;
    final byte[] clientToServer;
    final byte[] serverToClient;

    Keys(byte[] secret, byte[] hello, byte[] serverNonce) {
      byte[] salt = concat(hello, serverNonce);
      proof = hkdf(salt, secret, label("proof"));
      clientToServer = hkdf(salt, secret, label("client to server"));
      serverToClient = hkdf(salt, secret, label("server to client"));
    }

    byte[] serverProof() {
      return hmac(proof, "server".getBytes(StandardCharsets.US_ASCII));
    }

    byte[] clientProof() {
      return hmac(proof, "client".getBytes(StandardCharsets.US_ASCII));
    }
  }

  /**
   * The client's side, blocking: sends the hello, checks the server's proof, sends its own.
   *
   * @param deadlineNanos when to give up ({@link System#nanoTime()})
   * @throws Refused when the server does not prove it holds the secret
   */
  static Session client(Socket socket, WireSettings wire, byte purpose, long deadlineNanos,
      BooleanSupplier cancelled, String what) throws IOException {
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    byte[] hello = ByteBuffer.allocate(HELLO_BYTES).putInt(MAGIC).put(purpose)
        .put((byte) (wire.sealed ? 1 : 0)).put(nonce).array();
    OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 256);
    Frames.writeFrame(out, Session.clear(), ByteBuffer.wrap(hello));
    ByteBuffer challenge = Frames.readExactly(socket, CHALLENGE_BYTES, deadlineNanos, cancelled,
        what);
    byte[] serverNonce = new byte[NONCE_BYTES];
    byte[] serverProof = new byte[MAC_BYTES];
    challenge.get(serverNonce).get(serverProof);
    Keys keys = new Keys(wire.secret, hello, serverNonce);
    if (!MessageDigest.isEqual(serverProof, keys.serverProof())) {
      throw new Refused(what + " does not hold this training's secret (its proof is wrong): it"
          + " is not this training's");
    }
    Frames.writeFrame(out, Session.clear(), ByteBuffer.wrap(keys.clientProof()));
    if (Frames.readExactly(socket, ACCEPTED_BYTES, deadlineNanos, cancelled, what).get() != 1) {
      throw new Refused(what + " did not accept this task's proof");
    }
    return wire.sealed ? Session.sealed(keys.clientToServer, keys.serverToClient)
        : Session.clear();
  }

  /** The frame a server sends once the client's proof checked out (framing included). */
  static ByteBuffer accepted() {
    return ByteBuffer.allocate(4 + ACCEPTED_BYTES).putInt(ACCEPTED_BYTES).put((byte) 1).flip();
  }

  /** The server's side of one connection, driven by the frames the client sends. */
  static final class Server {
    private final WireSettings wire;
    private final byte purpose;
    private Keys keys;

    Server(WireSettings wire, byte purpose) {
      this.wire = wire;
      this.purpose = purpose;
    }

    /**
     * The challenge answering a hello ({@link #HELLO_BYTES} bytes, checked by the caller).
     *
     * @throws Refused for a hello of another protocol, purpose or sealing
     */
    ByteBuffer challenge(ByteBuffer hello) throws Refused {
      byte[] bytes = new byte[HELLO_BYTES];
      hello.get(bytes);
      ByteBuffer h = ByteBuffer.wrap(bytes);
      if (h.getInt() != MAGIC) {
        throw new Refused("not a hello of this exchange (wrong magic)");
      }
      if (h.get() != purpose) {
        throw new Refused("a hello meant for another kind of connection");
      }
      if (h.get() != (wire.sealed ? 1 : 0)) {
        throw new Refused("a hello that disagrees on sealing");
      }
      byte[] nonce = new byte[NONCE_BYTES];
      RANDOM.nextBytes(nonce);
      keys = new Keys(wire.secret, bytes, nonce);
      return ByteBuffer.allocate(CHALLENGE_BYTES).put(nonce).put(keys.serverProof()).flip();
    }

    /**
     * The connection's session once the client's proof ({@link #PROOF_BYTES} bytes) checks out.
     *
     * @throws Refused when it does not
     */
    Session verify(ByteBuffer proof) throws Refused {
      byte[] bytes = new byte[PROOF_BYTES];
      proof.get(bytes);
      if (keys == null || !MessageDigest.isEqual(bytes, keys.clientProof())) {
        throw new Refused("a client that does not hold this training's secret");
      }
      return wire.sealed ? Session.sealed(keys.serverToClient, keys.clientToServer)
          : Session.clear();
    }
  }

  private static byte[] label(String what) {
    return ("spark-perceptron barrier 1 " + what).getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * HKDF-SHA256 (RFC 5869) of 32 bytes: T(1) = HMAC(PRK, info ‖ 0x01) with PRK = HMAC(salt, ikm).
   */
  static byte[] hkdf(byte[] salt, byte[] ikm, byte[] info) {
    return hmac(hmac(salt, ikm), concat(info, new byte[] {1}));
  }

  static byte[] hmac(byte[] key, byte[] message) {
    try {
      Mac mac = Mac.getInstance(HMAC);
      mac.init(new SecretKeySpec(key, HMAC));
      return mac.doFinal(message);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM has no " + HMAC, e);
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
