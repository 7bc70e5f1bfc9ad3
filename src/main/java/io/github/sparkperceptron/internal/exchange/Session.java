package io.github.sparkperceptron.internal.exchange;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * One authenticated connection's frame bodies after the {@link Handshake}: in clear, or sealed
 * with AES-256-GCM (the JDK's cipher; the construction of Spark's own {@code GcmTransportCipher}
 * and of TLS 1.3's record layer), one key per direction derived from the training's secret and
 * both ends' nonces, the nonce of a frame being its number in that direction.
 *
 * <pre>
 * sealed body = AES-256-GCM(key of the direction, nonce = 0⁴ ‖ frame number (8 bytes, from 0),
 *                           plaintext) ‖ 16-byte tag
 * </pre>
 *
 * So a sealed frame cannot be read, changed, dropped, replayed or moved to another connection
 * or direction without its receiver failing the next frame it opens: frame numbers are counted
 * by both ends and never sent, and the keys are new for every connection. In clear, frames
 * travel as they are: the handshake proved who connected, but someone who can rewrite the
 * traffic on the path can rewrite frames, as they can Spark's own traffic when Spark's
 * encryption is off.
 *
 * <p>Large frames pass through the cipher in 64 KiB pieces: the JDK's GCM is fast once the JIT
 * has compiled its inner loops, which calls with megabytes each never trigger (measured on JDK 17:
 * 90 MB/s for 1 MB in one call, 1.3 GB/s sealed and opened in 64 KiB pieces). Not thread-safe:
 * one task's thread sends and receives on a connection.
 */
final class Session {
  /** Bytes a sealed frame adds: GCM's tag. */
  static final int TAG_BYTES = 16;
  private static final int TAG_BITS = 128;
  private static final int PIECE = 1 << 16;

  private final SecretKeySpec sendKey;
  private final SecretKeySpec receiveKey;
  private final Cipher sealer;
  private final Cipher opener;
  private long sent;
  private long received;

  private Session(byte[] sendKey, byte[] receiveKey) {
    if (sendKey == null) {
      this.sendKey = null;
      this.receiveKey = null;
      this.sealer = null;
      this.opener = null;
      return;
    }
    this.sendKey = new SecretKeySpec(sendKey, "AES");
    this.receiveKey = new SecretKeySpec(receiveKey, "AES");
    try {
      this.sealer = Cipher.getInstance("AES/GCM/NoPadding");
      this.opener = Cipher.getInstance("AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM has no AES/GCM/NoPadding cipher", e);
    }
  }

  /** Frames in clear. */
  static Session clear() {
    return new Session(null, null);
  }

  /** Frames sealed with these 32-byte keys, one per direction. */
  static Session sealed(byte[] sendKey, byte[] receiveKey) {
    return new Session(sendKey, receiveKey);
  }

  boolean isSealed() {
    return sealer != null;
  }

  /** Bytes a body has beyond its plaintext. */
  int overhead() {
    return sealer == null ? 0 : TAG_BYTES;
  }

  /** The body to send for the plaintext's remaining bytes (the plaintext itself in clear). */
  ByteBuffer seal(ByteBuffer plain) throws IOException {
    if (sealer == null) {
      return plain;
    }
    int n = plain.remaining();
    byte[] out = new byte[n + TAG_BYTES];
    try {
      sealer.init(Cipher.ENCRYPT_MODE, sendKey, nonce(sent++));
      ByteBuffer in = plain.duplicate();
      ByteBuffer to = ByteBuffer.wrap(out);
      while (in.remaining() > PIECE) {
        ByteBuffer piece = in.slice();
        piece.limit(PIECE);
        sealer.update(piece, to);
        in.position(in.position() + PIECE);
      }
      sealer.doFinal(in, to);
    } catch (GeneralSecurityException e) {
      throw new IOException("could not seal a frame: " + e, e);
    }
    return ByteBuffer.wrap(out);
  }

  /**
   * The plaintext of a received body ({@code length} bytes of {@code body}).
   *
   * @throws IOException when a sealed body fails authentication (changed, replayed, reordered, or
   *     not from the peer this connection authenticated)
   */
  ByteBuffer open(byte[] body, int length) throws IOException {
    if (opener == null) {
      return ByteBuffer.wrap(body, 0, length);
    }
    if (length < TAG_BYTES) {
      throw new IOException("a sealed frame of " + length + " bytes, shorter than its tag");
    }
    byte[] out = new byte[length - TAG_BYTES];
    try {
      opener.init(Cipher.DECRYPT_MODE, receiveKey, nonce(received++));
      int done = 0;
      int off = 0;
      while (length - off > PIECE) {
        done += opener.update(body, off, PIECE, out, done);
        off += PIECE;
      }
      opener.doFinal(body, off, length - off, out, done);
    } catch (GeneralSecurityException e) {
      throw new IOException("a frame failed authentication (changed on the way, replayed, or not"
          + " from the peer this connection authenticated)", e);
    }
    return ByteBuffer.wrap(out);
  }

  private static GCMParameterSpec nonce(long frame) {
    byte[] iv = new byte[12];
    ByteBuffer.wrap(iv).putLong(4, frame);
    return new GCMParameterSpec(TAG_BITS, iv);
  }
}
