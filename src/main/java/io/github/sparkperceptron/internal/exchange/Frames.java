package io.github.sparkperceptron.internal.exchange;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;

/**
 * Length-prefixed frames on a blocking socket: a 4-byte length, then that many bytes of body
 * (a {@link Session}'s clear or sealed body). Every length is checked against what the reader
 * expects before anything is allocated, so a peer cannot make a reader allocate more than the
 * largest frame its exchange can carry.
 *
 * <p>Reads still notice a killed task and a dead line: Spark kills the other tasks of a failed
 * barrier stage without interrupting their threads (unless {@code spark.job.interruptOnCancel} is
 * set), and a socket read does not respond to interrupts anyway, so a read waits in short ticks
 * and checks between them. A tick that times out has read nothing, so the stream stays in step;
 * data that arrives wakes the read at once, so the ticks cost no latency. Reads between
 * established peers have no dead line ({@link #NO_DEADLINE}): a round may take as long as its
 * slowest worker computes, and a peer whose host vanished is noticed by TCP keep-alive
 * ({@link PeerLinks}); a killed or failed peer closes its socket, which ends the wait at once.
 */
final class Frames {
  /** How often a waiting read checks whether its task was killed. */
  static final int TICK_MILLIS = 100;
  /** A wait bounded only by the task's life and the connection's. */
  static final long NO_DEADLINE = Long.MIN_VALUE;

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
   * ({@link System#nanoTime()}, or {@link #NO_DEADLINE}) and giving up when {@code cancelled}
   * says so.
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
    if (deadlineNanos != NO_DEADLINE && System.nanoTime() - deadlineNanos > 0) {
      throw new Abandoned("no answer from " + what + " in time");
    }
  }

  /**
   * Reads one frame of at most {@code maxPlain} bytes of plaintext and opens it.
   *
   * @throws IOException when the announced length exceeds what such a frame can hold (nothing
   *     allocated), or the body does not open
   */
  static ByteBuffer readFrame(Socket socket, Session session, int maxPlain, long deadlineNanos,
      BooleanSupplier cancelled, String what) throws IOException {
    int length = readLength(socket, deadlineNanos, cancelled, what);
    // In long: a bound near Integer.MAX_VALUE plus the tag must not wrap around.
    long most = (long) maxPlain + session.overhead();
    if (length < session.overhead() || length > most) {
      throw new IOException(what + " announced a frame of " + length + " bytes; this exchange's"
          + " frames hold " + session.overhead() + " to " + most);
    }
    byte[] body = new byte[length];
    readFully(socket, body, 0, length, deadlineNanos, cancelled, what);
    return session.open(body, length);
  }

  /** Reads one clear frame of exactly {@code size} bytes (a handshake's). */
  static ByteBuffer readExactly(Socket socket, int size, long deadlineNanos,
      BooleanSupplier cancelled, String what) throws IOException {
    int length = readLength(socket, deadlineNanos, cancelled, what);
    if (length != size) {
      throw new Handshake.Refused(what + " answered with a frame of " + length + " bytes where"
          + " the handshake expects " + size + ": it is not this training's");
    }
    byte[] body = new byte[size];
    readFully(socket, body, 0, size, deadlineNanos, cancelled, what);
    return ByteBuffer.wrap(body);
  }

  private static int readLength(Socket socket, long deadlineNanos, BooleanSupplier cancelled,
      String what) throws IOException {
    byte[] header = new byte[4];
    readFully(socket, header, 0, 4, deadlineNanos, cancelled, what);
    return ByteBuffer.wrap(header).getInt();
  }

  /**
   * Writes one frame (the buffer's remaining bytes, sealed by {@code session}) and flushes;
   * returns the bytes written, header included.
   */
  static int writeFrame(OutputStream out, Session session, ByteBuffer frame) throws IOException {
    ByteBuffer body = session.seal(frame);
    int length = body.remaining();
    out.write(ByteBuffer.allocate(4).putInt(length).array());
    if (body.hasArray()) {
      out.write(body.array(), body.arrayOffset() + body.position(), length);
    } else {
      byte[] copy = new byte[length];
      body.duplicate().get(copy);
      out.write(copy);
    }
    out.flush();
    return 4 + length;
  }
}
