package io.github.sparkperceptron.internal.exchange;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The exchange's mutual authentication and frame sealing: the key derivation against RFC 5869's
 * own test vector, the two ends agreeing, a wrong secret on either end refused, a recorded
 * connection replayed refused, sealed frames that were changed, replayed, reordered or sent the
 * other way refused, and a sealed frame that does not show its plaintext.
 */
class HandshakeTest {
  private static final int TIMEOUT_MS = 20_000;
  private static final WireSettings CLEAR = new WireSettings(secret(1), false, TIMEOUT_MS,
      TIMEOUT_MS);

  private ExecutorService pool;

  @BeforeEach
  void start() {
    pool = Executors.newCachedThreadPool();
  }

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private static byte[] secret(int seed) {
    byte[] s = new byte[WireSettings.SECRET_BYTES];
    new Random(seed).nextBytes(s);
    return s;
  }

  private static WireSettings withSealing(WireSettings w, boolean sealed) {
    return new WireSettings(w.secret, sealed, w.connectTimeoutMillis, w.livenessMillis);
  }

  /** A gate that answers every first frame with the same bytes reversed. */
  private static Gate reverser(WireSettings wire) throws IOException {
    return Gate.open(InetAddress.getLoopbackAddress(), 0, wire, Handshake.PEER, 64,
        (guest, first) -> {
          byte[] b = new byte[first.remaining()];
          first.get(b);
          for (int i = 0; i < b.length / 2; i++) {
            byte t = b[i];
            b[i] = b[b.length - 1 - i];
            b[b.length - 1 - i] = t;
          }
          guest.replyAndClose(ByteBuffer.wrap(b));
        }, "test gate");
  }

  /** RFC 5869, test case 1: the first 32 bytes of the OKM (L = 42 there) are T(1). */
  @Test
  void theKeyDerivationIsRfc5869sHkdf() {
    HexFormat hex = HexFormat.of();
    byte[] ikm = hex.parseHex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");
    byte[] salt = hex.parseHex("000102030405060708090a0b0c");
    byte[] info = hex.parseHex("f0f1f2f3f4f5f6f7f8f9");
    assertEquals("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf",
        hex.formatHex(Handshake.hkdf(salt, ikm, info)));
  }

  @ParameterizedTest(name = "sealed={0}")
  @ValueSource(booleans = {false, true})
  void bothEndsAuthenticateAndExchangeFrames(boolean sealed) throws Exception {
    WireSettings wire = withSealing(CLEAR, sealed);
    try (Gate gate = reverser(wire);
        Connection c = Connection.dial("127.0.0.1", gate.port(), wire, Handshake.PEER,
            () -> false, "the test gate")) {
      assertEquals(sealed, c.session.isSealed());
      c.send(ByteBuffer.wrap(new byte[] {1, 2, 3}));
      ByteBuffer back = c.receive(64, Frames.NO_DEADLINE, () -> false, "the test gate");
      assertEquals(ByteBuffer.wrap(new byte[] {3, 2, 1}), back);
      assertEquals(1, gate.admitted());
      assertEquals(0, gate.refused());
    }
  }

  /**
   * The client holds another training's secret: the server's proof does not match, so the
   * client refuses before it proves anything itself (no retry: an impostor does not become
   * genuine), and the gate counts a refusal and admits nothing.
   */
  @Test
  void aClientWithAnotherSecretIsRefusedAndRefuses() throws Exception {
    WireSettings other = new WireSettings(secret(2), false, TIMEOUT_MS, TIMEOUT_MS);
    try (Gate gate = reverser(CLEAR)) {
      long started = System.nanoTime();
      assertThrows(Handshake.Refused.class, () -> Connection.dial("127.0.0.1", gate.port(),
          other, Handshake.PEER, () -> false, "the test gate"));
      // Refused at the first answer, not after the 20 s connect timeout's retries.
      assertTrue(System.nanoTime() - started < TIMEOUT_MS / 2 * 1_000_000L);
      waitFor(() -> gate.refused() == 1);
      assertEquals(0, gate.admitted());
    }
  }

  /**
   * An impostor listening where a task expects the rendezvous or its parent (a fixed port taken
   * first): whatever it answers, the task refuses it without sending its proof or anything
   * after.
   */
  @Test
  void anImpostorServerIsRefused() throws Exception {
    try (ServerSocket impostor = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Future<byte[]> heard = pool.submit(() -> {
        try (Socket s = impostor.accept()) {
          byte[] hello = new byte[4 + Handshake.HELLO_BYTES];
          readFully(s.getInputStream(), hello);
          byte[] challenge = new byte[Handshake.CHALLENGE_BYTES];
          new Random(3).nextBytes(challenge);
          s.getOutputStream().write(ByteBuffer.allocate(4 + challenge.length)
              .putInt(challenge.length).put(challenge).array());
          // Whatever the client sends after a wrong proof would be here.
          ByteArrayOutputStream rest = new ByteArrayOutputStream();
          InputStream in = s.getInputStream();
          s.setSoTimeout(5_000);
          for (int b; (b = in.read()) >= 0; ) {
            rest.write(b);
          }
          return rest.toByteArray();
        }
      });
      assertThrows(Handshake.Refused.class, () -> Connection.dial("127.0.0.1",
          impostor.getLocalPort(), CLEAR, Handshake.PEER, () -> false, "the impostor"));
      assertEquals(0, heard.get(30, TimeUnit.SECONDS).length, "nothing after the hello");
    }
  }

  /**
   * A stranger recorded everything a genuine client sent (hello, proof, first frame) and plays
   * it back on a new connection: the server's new nonce makes the recorded proof wrong, and the
   * recorded first frame never reaches the owner.
   */
  @Test
  void aRecordedConnectionReplayedIsRefused() throws Exception {
    ByteArrayOutputStream recorded = new ByteArrayOutputStream();
    try (Gate gate = reverser(CLEAR);
        ServerSocket relay = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      pool.submit(() -> {
        try (Socket client = relay.accept();
            Socket server = new Socket("127.0.0.1", gate.port())) {
          pool.submit(() -> copy(server.getInputStream(), client.getOutputStream(), null));
          copy(client.getInputStream(), server.getOutputStream(), recorded);
        }
        return null;
      });
      try (Connection c = Connection.dial("127.0.0.1", relay.getLocalPort(), CLEAR,
          Handshake.PEER, () -> false, "the relay")) {
        c.send(ByteBuffer.wrap("registration".getBytes(StandardCharsets.US_ASCII)));
        c.receive(64, Frames.NO_DEADLINE, () -> false, "the relay");
      }
      waitFor(() -> gate.admitted() == 1);
      byte[] replay;
      synchronized (recorded) {
        replay = recorded.toByteArray();
      }
      assertTrue(replay.length > 4 + Handshake.HELLO_BYTES + 4 + Handshake.PROOF_BYTES,
          "the recording holds the hello, the proof and the first frame");
      try (Socket stranger = new Socket("127.0.0.1", gate.port())) {
        stranger.getOutputStream().write(replay);
        stranger.setSoTimeout(TIMEOUT_MS);
        InputStream in = stranger.getInputStream();
        byte[] challenge = new byte[4 + Handshake.CHALLENGE_BYTES];
        readFully(in, challenge);
        assertEquals(-1, in.read(), "closed after the replayed proof, nothing answered");
      }
      waitFor(() -> gate.refused() == 1);
      assertEquals(1, gate.admitted(), "the replayed first frame never reached the owner");
    }
  }

  /** Sealed frames: each opens once, in order, in its direction, unchanged; none shows its text. */
  @Test
  void sealedFramesCannotBeChangedReplayedReorderedOrTurnedAround() throws IOException {
    byte[] k1 = secret(4);
    byte[] k2 = secret(5);
    Session a = Session.sealed(k1, k2);
    Session b = Session.sealed(k2, k1);
    byte[] text = "the weights of round 7 of epoch 3 ".repeat(4000)
        .getBytes(StandardCharsets.US_ASCII);
    byte[] first = body(a.seal(ByteBuffer.wrap(text)));
    byte[] second = body(a.seal(ByteBuffer.wrap(new byte[] {42})));
    assertEquals(text.length + Session.TAG_BYTES, first.length);
    assertFalse(new String(first, StandardCharsets.US_ASCII).contains("weights"),
        "a sealed frame does not show its plaintext");

    byte[] changed = first.clone();
    changed[text.length / 2] ^= 1;
    assertThrows(IOException.class, () -> Session.sealed(k2, k1).open(changed,
        changed.length), "a changed bit");
    assertThrows(IOException.class, () -> Session.sealed(k2, k1).open(second, second.length),
        "the second frame first");
    assertThrows(IOException.class, () -> Session.sealed(k1, k2).open(first, first.length),
        "sent back the other way");

    assertArrayEquals(text, body(b.open(first, first.length)));
    assertThrows(IOException.class, () -> b.open(first, first.length), "the same frame again");
  }

  /** A clear frame longer than its reader allows is refused before its body is read. */
  @Test
  void aFrameLongerThanAllowedIsRefusedBeforeAllocating() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Socket client = new Socket("127.0.0.1", server.getLocalPort());
        Socket s = server.accept()) {
      client.getOutputStream().write(ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array());
      IOException e = assertThrows(IOException.class, () -> Frames.readFrame(s,
          Session.clear(), 1 << 20, Frames.NO_DEADLINE, () -> false, "the test peer"));
      assertTrue(e.getMessage().contains(String.valueOf(Integer.MAX_VALUE)), e.getMessage());
    }
  }

  private static byte[] body(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  private static void readFully(InputStream in, byte[] buf) throws IOException {
    for (int got = 0; got < buf.length; ) {
      int n = in.read(buf, got, buf.length - got);
      if (n < 0) {
        throw new IOException("closed after " + got + " bytes");
      }
      got += n;
    }
  }

  private static Void copy(InputStream in, OutputStream out, ByteArrayOutputStream tee)
      throws IOException {
    byte[] buf = new byte[4096];
    for (int n; (n = in.read(buf)) >= 0; ) {
      if (tee != null) {
        synchronized (tee) {
          tee.write(buf, 0, n);
        }
      }
      out.write(buf, 0, n);
      out.flush();
    }
    return null;
  }

  /** Waits (at most 30 s) for something the gate's thread does after the test's last step. */
  static void waitFor(BooleanSupplier done) throws InterruptedException {
    long until = System.nanoTime() + 30_000_000_000L;
    while (!done.getAsBoolean()) {
      assertTrue(System.nanoTime() < until, "waited 30 s");
      Thread.sleep(5);
    }
  }
}
