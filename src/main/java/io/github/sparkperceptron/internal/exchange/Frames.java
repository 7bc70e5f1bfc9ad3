package io.github.sparkperceptron.internal.exchange;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;

/**
 * Blocking reads from a socket that still notice a killed task and a dead line: Spark kills the
 * other tasks of a failed barrier stage without interrupting their threads (unless
 * {@code spark.job.interruptOnCancel} is set), and a socket read does not respond to interrupts
 * anyway, so a read waits in short ticks and checks between them. A tick that times out has read
 * nothing, so the stream stays in step; data that arrives wakes the read at once, so the ticks
 * cost no latency.
 */
final class Frames {
  /** How often a waiting read checks whether its task was killed. */
  static final int TICK_MILLIS = 100;
  /**
   * How long a connection may take to introduce itself (a registration, a hello): a task sends
   * it right after connecting, so a connection silent for longer is a stranger, and waiting for
   * it must not hold up the others.
   */
  static final long HELLO_NANOS = 10_000_000_000L;

  private Frames() {
  }

  /** Why a wait ended early: the task was killed, or the peer stayed silent too long. */
  static final class Abandoned extends InterruptedIOException {
    private static final long serialVersionUID = 1L;

    Abandoned(String message) {
      super(message);
    }
  }

  /**
   * Fills {@code buf} from the socket, waiting at most until {@code deadlineNanos}
   * ({@link System#nanoTime()}) and giving up when {@code cancelled} says so.
   *
   * @param what names the peer in the error messages
   */
  static void readFully(Socket socket, byte[] buf, int off, int len, long deadlineNanos,
      BooleanSupplier cancelled, String what) throws IOException {
    InputStream in = socket.getInputStream();
    if (socket.getSoTimeout() != TICK_MILLIS) {
      socket.setSoTimeout(TICK_MILLIS);
    }
    int done = 0;
    while (done < len) {
      int n;
      try {
        n = in.read(buf, off + done, len - done);
      } catch (SocketTimeoutException tick) {
        check(deadlineNanos, cancelled, what);
        continue;
      }
      if (n < 0) {
        throw new IOException(what + " closed the connection (its task failed or was killed)");
      }
      done += n;
    }
  }

  /** Throws when the task was killed or the dead line passed. */
  static void check(long deadlineNanos, BooleanSupplier cancelled, String what)
      throws Abandoned {
    if (cancelled.getAsBoolean()) {
      throw new Abandoned("the task was killed while waiting for " + what);
    }
    if (System.nanoTime() - deadlineNanos > 0) {
      throw new Abandoned("no message from " + what + " within the barrier timeout");
    }
  }

  /** Reads one length-prefixed frame. */
  static ByteBuffer readFrame(Socket socket, long deadlineNanos, BooleanSupplier cancelled,
      String what) throws IOException {
    byte[] header = new byte[4];
    readFully(socket, header, 0, 4, deadlineNanos, cancelled, what);
    int length = ByteBuffer.wrap(header).getInt();
    if (length < 0) {
      throw new IOException(what + " sent a frame of " + length + " bytes");
    }
    byte[] body = new byte[length];
    readFully(socket, body, 0, length, deadlineNanos, cancelled, what);
    return ByteBuffer.wrap(body);
  }

  /** Writes one length-prefixed frame (the buffer's remaining bytes) and flushes. */
  static int writeFrame(java.io.OutputStream out, ByteBuffer frame) throws IOException {
    int length = frame.remaining();
    byte[] header = ByteBuffer.allocate(4).putInt(length).array();
    out.write(header);
    if (frame.hasArray()) {
      out.write(frame.array(), frame.arrayOffset() + frame.position(), length);
    } else {
      byte[] copy = new byte[length];
      frame.duplicate().get(copy);
      out.write(copy);
    }
    out.flush();
    return 4 + length;
  }
}
