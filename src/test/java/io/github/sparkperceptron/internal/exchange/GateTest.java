package io.github.sparkperceptron.internal.exchange;

import static io.github.sparkperceptron.internal.exchange.HandshakeTest.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What a connection can cost a {@link Gate} before it authenticates: its own deadline, its own
 * place among at most {@value Gate#MAX_PENDING} handshakes, a few dozen bytes, and nothing when
 * it fails; a genuine client still gets through.
 */
class GateTest {
  private static final byte[] SECRET = new byte[WireSettings.SECRET_BYTES];

  private static Gate echo(WireSettings wire, Gate.Arrival arrival) throws IOException {
    return Gate.open(InetAddress.getLoopbackAddress(), 0, wire, Handshake.PEER, 16, arrival,
        "test gate");
  }

  private static Gate echo(WireSettings wire) throws IOException {
    return echo(wire, (guest, first) -> guest.replyAndClose(first));
  }

  /** A genuine client's round trip through the gate. */
  private static void roundTrip(Gate gate, WireSettings wire, int value) throws IOException {
    try (Connection c = Connection.dial("127.0.0.1", gate.port(), wire, Handshake.PEER,
        () -> false, "the gate")) {
      c.send(ByteBuffer.allocate(4).putInt(value).flip());
      assertEquals(value, c.receive(16, Frames.NO_DEADLINE, () -> false, "the gate").getInt());
    }
  }

  /** Whether the server closed {@code s} (EOF) within {@code millis}. */
  private static boolean closedWithin(Socket s, int millis) throws IOException {
    s.setSoTimeout(millis);
    InputStream in = s.getInputStream();
    try {
      while (true) {
        if (in.read() < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      // Reset: closed as well.
      return true;
    }
  }

  /**
   * A connection that says nothing is closed at the connect timeout (here 1 s), not before its
   * genuine neighbours are served and not never.
   */
  @Test
  void aSilentConnectionIsClosedAtItsDeadlineAndHoldsUpNobody() throws Exception {
    WireSettings wire = new WireSettings(SECRET, false, 1_000, 60_000);
    try (Gate gate = echo(wire); Socket silent = new Socket("127.0.0.1", gate.port())) {
      long start = System.nanoTime();
      roundTrip(gate, wire, 7);
      assertTrue(!silent.isClosed() && !closedWithin(silent, 1),
          "the genuine client was served while the silent one still waited");
      // The deadline is 1 s; a stalled machine may deliver the close late, never not at all.
      assertTrue(closedWithin(silent, 30_000), "closed at the deadline");
      assertTrue(System.nanoTime() - start >= 900_000_000L, "not before the deadline");
      waitFor(() -> gate.refused() == 1);
    }
  }

  /**
   * More connections in their handshake than the gate holds: the oldest are closed to make
   * room, the newest stay, and a genuine client arriving after them all still gets through.
   */
  @Test
  void theOldestHandshakesMakeRoomForNewOnes() throws Exception {
    WireSettings wire = new WireSettings(SECRET, false, 60_000, 60_000);
    int extra = 20;
    List<Socket> flood = new ArrayList<>();
    try (Gate gate = echo(wire)) {
      try {
        for (int i = 0; i < Gate.MAX_PENDING + extra; i++) {
          flood.add(new Socket("127.0.0.1", gate.port()));
        }
        waitFor(() -> gate.refused() >= extra);
        for (int i = 0; i < extra; i++) {
          assertTrue(closedWithin(flood.get(i), 30_000), "old connection " + i + " closed");
        }
        assertTrue(!closedWithin(flood.get(flood.size() - 1), 50), "the newest is kept");
        roundTrip(gate, wire, 11);
        assertEquals(1, gate.admitted());
      } finally {
        for (Socket s : flood) {
          s.close();
        }
      }
    }
  }

  /**
   * A connection that sent a well-formed hello and waits for its own proof (a task between its
   * two messages) outlives a flood of silent connections: the flood's own oldest make room.
   */
  @Test
  void aFloodOfSilentConnectionsCannotEvictAHandshakeInProgress() throws Exception {
    WireSettings wire = new WireSettings(SECRET, false, 60_000, 60_000);
    List<Socket> flood = new ArrayList<>();
    try (Gate gate = echo(wire); Socket task = new Socket("127.0.0.1", gate.port())) {
      byte[] hello = ByteBuffer.allocate(4 + Handshake.HELLO_BYTES)
          .putInt(Handshake.HELLO_BYTES).putInt(Handshake.MAGIC).put(Handshake.PEER)
          .put((byte) 0).put(new byte[Handshake.NONCE_BYTES]).array();
      task.getOutputStream().write(hello);
      byte[] challenge = new byte[4 + Handshake.CHALLENGE_BYTES];
      task.setSoTimeout(30_000);
      for (int got = 0; got < challenge.length; ) {
        got += Math.max(0, task.getInputStream().read(challenge, got, challenge.length - got));
      }
      try {
        for (int i = 0; i < 2 * Gate.MAX_PENDING; i++) {
          flood.add(new Socket("127.0.0.1", gate.port()));
        }
        waitFor(() -> gate.refused() >= Gate.MAX_PENDING);
        assertTrue(closedWithin(flood.get(0), 30_000), "the flood's oldest made room");
        assertTrue(!closedWithin(task, 50), "the handshake in progress is kept");
      } finally {
        for (Socket s : flood) {
          s.close();
        }
      }
    }
  }

  /**
   * Lengths a handshake cannot have (2³¹ − 1, negative, a hello of the wrong size) close the
   * connection at once, before any of its body is read or allocated; the gate goes on.
   */
  @Test
  void impossibleLengthsAreRefusedAtOnce() throws Exception {
    WireSettings wire = new WireSettings(SECRET, false, 60_000, 60_000);
    try (Gate gate = echo(wire)) {
      int refused = 0;
      for (int length : new int[] {Integer.MAX_VALUE, -1, 0, Handshake.HELLO_BYTES + 1}) {
        try (Socket s = new Socket("127.0.0.1", gate.port())) {
          s.getOutputStream().write(ByteBuffer.allocate(4).putInt(length).array());
          // Far below the 60 s deadline: refused for the length, not timed out.
          assertTrue(closedWithin(s, 30_000), "length " + length);
        }
        int expected = ++refused;
        waitFor(() -> gate.refused() == expected);
      }
      roundTrip(gate, wire, 13);
    }
  }

  /**
   * An authenticated connection whose first frame is longer than the owner's bound is refused
   * too: a task of this training cannot make the gate allocate more than the bound either.
   */
  @Test
  void aFirstFrameOverTheOwnersBoundIsRefused() throws Exception {
    WireSettings wire = new WireSettings(SECRET, false, 60_000, 60_000);
    try (Gate gate = echo(wire);
        Connection c = Connection.dial("127.0.0.1", gate.port(), wire, Handshake.PEER,
            () -> false, "the gate")) {
      c.send(ByteBuffer.allocate(17));
      assertThrows(IOException.class,
          () -> c.receive(16, Frames.NO_DEADLINE, () -> false, "the gate"));
      waitFor(() -> gate.refused() == 1);
      assertEquals(0, gate.admitted());
    }
  }

  /**
   * The owner failing on a connection, even with an {@code Error}, closes that connection only:
   * the next genuine client is served.
   */
  @Test
  void anOwnerThatThrowsCostsOneConnection() throws Exception {
    WireSettings wire = new WireSettings(SECRET, false, 60_000, 60_000);
    AtomicInteger calls = new AtomicInteger();
    try (Gate gate = echo(wire, (guest, first) -> {
      if (calls.incrementAndGet() == 1) {
        throw new OutOfMemoryError("simulated: the owner failed on this connection");
      }
      guest.replyAndClose(first);
    })) {
      try (Connection c = Connection.dial("127.0.0.1", gate.port(), wire, Handshake.PEER,
          () -> false, "the gate")) {
        c.send(ByteBuffer.allocate(4).putInt(1).flip());
        assertThrows(IOException.class,
            () -> c.receive(16, Frames.NO_DEADLINE, () -> false, "the gate"));
      }
      roundTrip(gate, wire, 17);
      assertEquals(2, calls.get());
    }
  }
}
