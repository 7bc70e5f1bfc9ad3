package io.github.sparkperceptron.internal.exchange;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;
import jdk.net.ExtendedSocketOptions;

/**
 * One authenticated connection of the barrier exchange, blocking: a socket, its {@link Session}
 * and a buffered stream out. A task opens them with {@link #dial} (to the driver's rendezvous and
 * to its parent) or receives them from its listener's {@link Gate}.
 */
final class Connection implements AutoCloseable {
  /** The first pause between tries of a dial that failed (doubling, at most a second). */
  private static final long FIRST_BACKOFF_MILLIS = 20;

  final Socket socket;
  final Session session;
  private final OutputStream out;

  Connection(Socket socket, Session session) throws IOException {
    this.socket = socket;
    this.session = session;
    this.out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
  }

  /**
   * Connects to {@code host}:{@code port} and runs the handshake, trying again with growing
   * pauses while the whole stays within the connect timeout (a flood at the other end may have
   * closed a first try); an end that fails to prove it holds the secret is not tried again.
   *
   * @throws IOException naming {@code what} and the last failure, once the timeout is spent,
   *     the task killed, or the other end refused
   */
  static Connection dial(String host, int port, WireSettings wire, byte purpose,
      BooleanSupplier cancelled, String what) throws IOException {
    long start = System.nanoTime();
    long deadline = start + wire.connectTimeoutMillis * 1_000_000L;
    long backoff = FIRST_BACKOFF_MILLIS;
    int tries = 0;
    while (true) {
      tries++;
      Socket s = new Socket();
      try {
        s.setTcpNoDelay(true);
        long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
        s.connect(new InetSocketAddress(host, port), (int) Math.min(Integer.MAX_VALUE, left));
        Session session = Handshake.client(s, wire, purpose, deadline, cancelled, what);
        return new Connection(s, session);
      } catch (Handshake.Refused | Frames.Abandoned e) {
        closeQuietly(s);
        throw e;
      } catch (IOException e) {
        closeQuietly(s);
        if (cancelled.getAsBoolean()
            || System.nanoTime() + backoff * 1_000_000L - deadline > 0) {
          throw new IOException("cannot connect to " + what + " within the "
              + wire.connectTimeoutMillis + " ms connect timeout (" + tries + " tries; last: "
              + e.getMessage() + ")", e);
        }
        sleep(backoff);
        backoff = Math.min(1000, backoff * 2);
      }
    }
  }

  /**
   * Turns on TCP keep-alive so that a peer whose host vanished (no FIN, no RST: a power cut, a
   * network split) is noticed within about {@code livenessMillis}: probes after half of it idle,
   * then every tenth, the rest of it unanswered ending the connection. A slow but living peer
   * answers the probes from its kernel, so it is never mistaken for a dead one. Where the JVM
   * cannot set the intervals (not Linux or macOS), the system's keep-alive timing applies.
   */
  void keepAlive(int livenessMillis) throws SocketException {
    socket.setKeepAlive(true);
    int total = Math.max(2, livenessMillis / 1000);
    int idle = Math.max(1, total / 2);
    int interval = Math.max(1, total / 10);
    int count = Math.max(1, (total - idle) / interval);
    try {
      if (socket.supportedOptions().contains(ExtendedSocketOptions.TCP_KEEPIDLE)) {
        socket.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, idle);
        socket.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, interval);
        socket.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, count);
      }
    } catch (IOException | UnsupportedOperationException e) {
      // The system's own keep-alive timing stays.
    }
  }

  /** Sends one frame; returns the bytes written, framing included. */
  int send(ByteBuffer frame) throws IOException {
    return Frames.writeFrame(out, session, frame);
  }

  /**
   * Receives one frame of at most {@code maxPlain} bytes, waiting until {@code deadlineNanos}
   * ({@link Frames#NO_DEADLINE}: as long as the task lives and the connection holds).
   */
  ByteBuffer receive(int maxPlain, long deadlineNanos, BooleanSupplier cancelled, String what)
      throws IOException {
    return Frames.readFrame(socket, session, maxPlain, deadlineNanos, cancelled, what);
  }

  @Override
  public void close() {
    closeQuietly(socket);
  }

  static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // Closing a socket nobody will read again.
    }
  }

  private static void sleep(long millis) throws IOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while connecting");
    }
  }
}
