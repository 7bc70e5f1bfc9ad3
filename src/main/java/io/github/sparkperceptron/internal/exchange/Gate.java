package io.github.sparkperceptron.internal.exchange;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.LinkedHashSet;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listening port of the barrier exchange that strangers cannot hurt: one thread serves every
 * connection at once (non-blocking sockets), runs the {@link Handshake} with each, reads its first
 * frame and only then hands it to the owner ({@link Arrival}): the driver's {@link Rendezvous}
 * or a task's listener for its children ({@link PeerLinks}).
 *
 * <p>What a connection can cost before it has authenticated, whatever it sends (nothing, half a
 * frame, a huge length, garbage, a recorded handshake):
 * <ul>
 *   <li>memory: a few dozen bytes; every length is checked against its step's fixed size (the
 *       first frame against the owner's small bound) before a byte of body is allocated;</li>
 *   <li>time: the connect timeout, after which it is closed; no connection ever blocks another,
 *       since nothing here waits on a socket;</li>
 *   <li>room: at most {@value #MAX_PENDING} connections are in their handshake at once; the next
 *       one closes the oldest that has not said a well-formed hello (else the oldest waiting
 *       for its proof, see {@link #victim}), so a flood cannot keep a real task out, and the
 *       kernel's queue of connections not yet accepted is drained at every wake-up;</li>
 *   <li>failures: whatever one connection throws (any {@code Throwable}) closes that connection
 *       and nothing else; the thread goes on serving.</li>
 * </ul>
 * A stranger is refused without an answer beyond the handshake's challenge and counted; the
 * owner's {@link #close()} logs how many, once. Spark's own RPC server (Netty) takes the same
 * approach for its connections: non-blocking, authenticated before any message is handled.
 */
final class Gate implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Gate.class);
  /** Connections in their handshake at once; the oldest is closed to admit another. */
  static final int MAX_PENDING = 256;
  /** The kernel's queue of connections not yet accepted. */
  private static final int BACKLOG = 1024;

  /** What the owner does with an authenticated connection and its first frame. */
  interface Arrival {
    /**
     * Called on the gate's thread. Throwing closes the connection.
     *
     * @param first the first frame's plaintext
     */
    void arrived(Guest guest, ByteBuffer first) throws IOException;
  }

  private enum Step {
    HELLO, PROOF, FIRST, PARKED, CLOSED
  }

  private final ServerSocketChannel server;
  private final Selector selector;
  private final WireSettings wire;
  private final byte purpose;
  private final int maxFirst;
  private final Arrival arrival;
  private final String name;
  private final Thread thread;
  /**
   * Connections with a deadline (in their handshake, or authenticated and not yet through their
   * first frame), oldest first: deadlines in the same order. A connection leaves it as soon as
   * it is parked or closed, so it holds at most {@value #MAX_PENDING} connections in their
   * handshake and the few authenticated ones about to send their first frame.
   */
  private final LinkedHashSet<Conn> pending = new LinkedHashSet<>();
  /** Connections in {@link Step#HELLO} or {@link Step#PROOF}: those a newcomer may evict. */
  private int unauthenticated;
  private volatile boolean closed;
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong admitted = new AtomicLong();

  /** One accepted connection. */
  private final class Conn {
    final SocketChannel channel;
    final SelectionKey key;
    final long deadline;
    final ByteBuffer header = ByteBuffer.allocate(4);
    final Handshake.Server handshake = new Handshake.Server(wire, purpose);
    Step step = Step.HELLO;
    ByteBuffer body;
    ByteBuffer out;
    boolean closeAfterWrite;
    Session session;

    Conn(SocketChannel channel) throws IOException {
      this.channel = channel;
      this.deadline = System.nanoTime() + wire.connectTimeoutMillis * 1_000_000L;
      this.key = channel.register(selector, SelectionKey.OP_READ, this);
    }
  }

  /**
   * An authenticated connection, parked at the gate until its owner answers it. Its methods run
   * on the gate's thread only: inside {@link Arrival#arrived} or another arrival's call.
   */
  final class Guest {
    private final Conn conn;

    private Guest(Conn conn) {
      this.conn = conn;
    }

    /** Sends one frame (sealed by the connection's session), then closes the connection. */
    void replyAndClose(ByteBuffer plain) throws IOException {
      if (conn.step == Step.CLOSED) {
        return;
      }
      ByteBuffer body = conn.session.seal(plain);
      ByteBuffer frame = ByteBuffer.allocate(4 + body.remaining()).putInt(body.remaining())
          .put(body.duplicate());
      frame.flip();
      conn.out = frame;
      conn.closeAfterWrite = true;
      write(conn);
    }

    /**
     * The connection as a blocking socket with its session, taken out of the gate: the owner
     * reads and writes it from now on.
     */
    Connection detach() throws IOException {
      conn.key.cancel();
      // The channel leaves the selector at its next selection; only then may it block.
      selector.selectNow();
      conn.step = Step.CLOSED;
      conn.channel.configureBlocking(true);
      return new Connection(conn.channel.socket(), conn.session);
    }

    void close() {
      drop(conn, null);
    }

    /** Where the connection comes from, for messages. */
    String remote() {
      Socket s = conn.channel.socket();
      return String.valueOf(s.getRemoteSocketAddress());
    }
  }

  private Gate(ServerSocketChannel server, Selector selector, WireSettings wire, byte purpose,
      int maxFirst, Arrival arrival, String name) {
    this.server = server;
    this.selector = selector;
    this.wire = wire;
    this.purpose = purpose;
    this.maxFirst = maxFirst;
    this.arrival = arrival;
    this.name = name;
    this.thread = new Thread(this::serve, name);
    this.thread.setDaemon(true);
  }

  /**
   * Listens on {@code bind}:{@code port} (0: any free port) and serves connections on a daemon
   * thread until {@link #close()}.
   *
   * @param purpose {@link Handshake#RENDEZVOUS} or {@link Handshake#PEER}
   * @param maxFirst the most bytes of plaintext an authenticated connection's first frame holds
   * @param name the thread's name and the owner's, for the log
   */
  static Gate open(InetAddress bind, int port, WireSettings wire, byte purpose, int maxFirst,
      Arrival arrival, String name) throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open();
    Selector selector = null;
    try {
      server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      server.bind(new InetSocketAddress(bind, port), BACKLOG);
      server.configureBlocking(false);
      selector = Selector.open();
      server.register(selector, SelectionKey.OP_ACCEPT);
    } catch (IOException | RuntimeException e) {
      server.close();
      if (selector != null) {
        selector.close();
      }
      throw e;
    }
    Gate gate = new Gate(server, selector, wire, purpose, maxFirst, arrival, name);
    gate.thread.start();
    return gate;
  }

  int port() {
    return server.socket().getLocalPort();
  }

  /** Connections refused so far: failed or late handshakes, bad frames, the oldest evicted. */
  long refused() {
    return refused.get();
  }

  /** Connections that authenticated and reached the owner so far. */
  long admitted() {
    return admitted.get();
  }

  private void serve() {
    try {
      while (!closed) {
        try {
          selector.select(waitMillis());
          // A copy: handing a connection over (Guest.detach) selects again, which adds to the
          // set; a key left out this way is still ready at the next select (level-triggered).
          SelectionKey[] ready = selector.selectedKeys().toArray(new SelectionKey[0]);
          selector.selectedKeys().clear();
          for (SelectionKey key : ready) {
            handle(key);
          }
          expire();
        } catch (Throwable t) {
          if (closed) {
            break;
          }
          // The selector itself failed (not one connection): log and go on, without spinning.
          LOG.warn("{}: {}", name, t.toString());
          pause();
        }
      }
    } finally {
      for (SelectionKey key : selector.keys()) {
        closeQuietly(key.channel());
      }
      closeQuietly(selector);
      closeQuietly(server);
    }
  }

  private long waitMillis() {
    Conn oldest = oldestPending();
    if (oldest == null) {
      return 0;
    }
    return Math.max(1, (oldest.deadline - System.nanoTime()) / 1_000_000 + 1);
  }

  private void handle(SelectionKey key) {
    if (key.channel() == server) {
      accept();
      return;
    }
    Conn c = (Conn) key.attachment();
    try {
      if (!key.isValid()) {
        return;
      }
      if (key.isWritable()) {
        write(c);
      }
      if (key.isValid() && key.isReadable()) {
        read(c);
      }
    } catch (Throwable t) {
      drop(c, t);
    }
  }

  private void accept() {
    while (true) {
      SocketChannel channel;
      try {
        channel = server.accept();
      } catch (Throwable t) {
        // Out of file descriptors, say: the queued connections wait in the kernel meanwhile.
        LOG.debug("{}: cannot accept a connection: {}", name, t.toString());
        pause();
        return;
      }
      if (channel == null) {
        return;
      }
      try {
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        pending.add(new Conn(channel));
        unauthenticated++;
      } catch (Throwable t) {
        closeQuietly(channel);
        continue;
      }
      while (unauthenticated > MAX_PENDING) {
        drop(victim(), new IOException("evicted: " + MAX_PENDING
            + " other connections are in their handshake"));
      }
    }
  }

  /** The oldest connection with a deadline, or null. */
  private Conn oldestPending() {
    return pending.isEmpty() ? null : pending.iterator().next();
  }

  /**
   * The connection to close to admit a new one: the oldest that has not sent a well-formed
   * hello yet (silent, partial, slow: what a flood leaves), else the oldest waiting for its
   * proof. A task sends its hello as it connects and its proof one round trip later, so only
   * more than {@value #MAX_PENDING} hellos arriving within that round trip can close a task's
   * handshake, which then tries again ({@link Connection#dial}): the server confirms a proof
   * before the task sends anything else, so nothing a task sent is ever lost unnoticed.
   */
  private Conn victim() {
    Conn proof = null;
    for (Conn c : pending) {
      if (c.step == Step.HELLO) {
        return c;
      }
      if (proof == null && c.step == Step.PROOF) {
        proof = c;
      }
    }
    return proof;
  }

  /** In the handshake: before the proof checked out. */
  private static boolean inHandshake(Conn c) {
    return c.step == Step.HELLO || c.step == Step.PROOF;
  }

  /** Held to a deadline: in the handshake or before the first frame. */
  private static boolean timed(Conn c) {
    return inHandshake(c) || c.step == Step.FIRST;
  }

  private void expire() {
    long now = System.nanoTime();
    Conn c = oldestPending();
    while (c != null && now - c.deadline > 0) {
      drop(c, new IOException("no handshake within " + wire.connectTimeoutMillis + " ms"));
      c = oldestPending();
    }
  }

  private void read(Conn c) throws IOException {
    while (timed(c)) {
      if (c.body == null) {
        if (c.channel.read(c.header) < 0) {
          throw new IOException("closed by the other end");
        }
        if (c.header.hasRemaining()) {
          return;
        }
        int length = c.header.flip().getInt();
        c.header.clear();
        c.body = ByteBuffer.allocate(checked(c, length));
      }
      if (c.channel.read(c.body) < 0) {
        throw new IOException("closed by the other end");
      }
      if (c.body.hasRemaining()) {
        return;
      }
      ByteBuffer body = c.body.flip();
      c.body = null;
      advance(c, body);
    }
  }

  /** The length announced for the connection's next frame, if its step allows it. */
  private int checked(Conn c, int length) throws IOException {
    int least;
    int most;
    switch (c.step) {
      case HELLO:
        least = Handshake.HELLO_BYTES;
        most = least;
        break;
      case PROOF:
        least = Handshake.PROOF_BYTES;
        most = least;
        break;
      default:
        least = c.session.overhead();
        most = maxFirst + least;
    }
    if (length < least || length > most) {
      throw new IOException("announced a frame of " + length + " bytes where " + least
          + (most == least ? "" : " to " + most) + " are expected");
    }
    return length;
  }

  private void advance(Conn c, ByteBuffer body) throws IOException {
    switch (c.step) {
      case HELLO:
        ByteBuffer challenge = c.handshake.challenge(body);
        c.out = ByteBuffer.allocate(4 + challenge.remaining()).putInt(challenge.remaining())
            .put(challenge).flip();
        c.step = Step.PROOF;
        write(c);
        break;
      case PROOF:
        c.session = c.handshake.verify(body);
        c.step = Step.FIRST;
        unauthenticated--;
        c.out = Handshake.accepted();
        write(c);
        break;
      default:
        ByteBuffer first = c.session.open(body.array(), body.limit());
        c.step = Step.PARKED;
        pending.remove(c);
        // Parked: nothing more is read until the owner answers (the client waits for it).
        c.key.interestOps(0);
        admitted.incrementAndGet();
        arrival.arrived(new Guest(c), first);
    }
  }

  private void write(Conn c) throws IOException {
    if (c.step == Step.CLOSED || c.out == null) {
      return;
    }
    c.channel.write(c.out);
    int ops = c.key.interestOps();
    if (c.out.hasRemaining()) {
      c.key.interestOps(ops | SelectionKey.OP_WRITE);
      return;
    }
    c.out = null;
    c.key.interestOps(ops & ~SelectionKey.OP_WRITE);
    if (c.closeAfterWrite) {
      drop(c, null);
    }
  }

  /** Closes a connection; a failure ({@code why} not null) before it authenticated counts. */
  private void drop(Conn c, Throwable why) {
    if (c == null || c.step == Step.CLOSED) {
      return;
    }
    if (inHandshake(c)) {
      unauthenticated--;
    }
    if (timed(c)) {
      refused.incrementAndGet();
    }
    if (why != null) {
      LOG.debug("{}: closed a connection from {}: {}", name,
          c.channel.socket().getRemoteSocketAddress(), why.toString());
    }
    c.step = Step.CLOSED;
    pending.remove(c);
    c.key.cancel();
    closeQuietly(c.channel);
  }

  private static void pause() {
    try {
      Thread.sleep(10);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException | RuntimeException ignored) {
      // Closing what nobody reads again.
    }
  }

  /** Stops serving and closes every connection still held (parked ones included). */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    selector.wakeup();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    long n = refused.get();
    if (n > 0) {
      LOG.info("{} refused {} connection(s) that did not authenticate as this training's tasks"
          + " in time", name, n);
    }
  }
}
