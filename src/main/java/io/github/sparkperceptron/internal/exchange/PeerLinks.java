package io.github.sparkperceptron.internal.exchange;

import io.github.sparkperceptron.internal.mixing.RoundTree;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One barrier task's connections to its neighbours in {@link RoundTree}'s tree (its parent and
 * its children), opened once per stage attempt and used by every mixing round of the epoch.
 *
 * <p>Setting up: when the task has children, listen on a free port of the executor's own address
 * (the one Spark uses for it, never every interface) through a {@link Gate}, which authenticates
 * whoever connects; register with the driver's {@link Rendezvous} and receive every task's
 * address; connect to the parent and introduce itself (group and worker, after the handshake);
 * take the children the gate admitted, then close the listening port: for the rest of the epoch
 * no port of the task listens. Connecting is bounded by the connect timeout (with retries within
 * it, {@link Connection#dial}); waiting for the other tasks and for a round's frames is bounded by
 * the task's life (a killed task stops within {@value Frames#TICK_MILLIS} ms, a failed peer's
 * closed socket ends the wait at once) and by TCP keep-alive for a peer whose host vanished: a
 * round is as slow as its slowest worker needs, never failed by a clock. Every frame is bounded
 * by the largest change the model's shape allows ({@link Seat#maxFrameBytes}) and sealed when the
 * training seals ({@link WireSettings}). Frames are written with Nagle's algorithm off, so a
 * round's small messages leave at once.
 */
public final class PeerLinks implements RoundTree.Link, AutoCloseable {
  /** Bytes of a child's introduction: its group key and worker. */
  static final int HELLO_BYTES = 8 + 4;

  private final Seat seat;
  private final WireSettings wire;
  private final BooleanSupplier cancelled;
  private final Connection[] links;
  /** Children the listener admitted, for the task's thread to take. */
  private final LinkedBlockingQueue<Arrived> arrivals = new LinkedBlockingQueue<>();
  private Gate listener;
  private long bytesSent;

  /**
   * Where a task sits in its barrier stage: its group (the stage attempt: stage · 2³² +
   * attempt; tasks of other attempts never meet), W, its worker, the host the others reach it at,
   * the address it listens on, and the largest frame its rounds may carry.
   */
  public static final class Seat {
    final long group;
    final int workers;
    final int worker;
    final String host;
    final String bindHost;
    final int maxFrameBytes;
    final int advertisedPort;

    /**
     * @param host the host name the other tasks reach this one at (Spark's for its executor)
     * @param bindHost the address this task listens on (Spark's bind address for its executor)
     * @param maxFrameBytes the largest frame a round sends
     *     ({@link RoundTree#maxFrameBytes(int)} of the model's length)
     */
    public Seat(long group, int workers, int worker, String host, String bindHost,
        int maxFrameBytes) {
      this(group, workers, worker, host, bindHost, maxFrameBytes, 0);
    }

    private Seat(long group, int workers, int worker, String host, String bindHost,
        int maxFrameBytes, int advertisedPort) {
      this.group = group;
      this.workers = workers;
      this.worker = worker;
      this.host = host;
      this.bindHost = bindHost;
      this.maxFrameBytes = maxFrameBytes;
      this.advertisedPort = advertisedPort;
    }

    /**
     * This seat telling the others {@code port} instead of its listener's (a test's black hole:
     * a port whose connections a firewall drops).
     */
    public Seat advertising(int port) {
      return new Seat(group, workers, worker, host, bindHost, maxFrameBytes, port);
    }
  }

  /** A child's authenticated connection, handed over by the listener's gate. */
  private static final class Arrived {
    final int worker;
    final Connection connection;

    Arrived(int worker, Connection connection) {
      this.worker = worker;
      this.connection = connection;
    }
  }

  private PeerLinks(Seat seat, WireSettings wire, BooleanSupplier cancelled) {
    this.seat = seat;
    this.wire = wire;
    this.cancelled = cancelled;
    this.links = new Connection[seat.workers];
  }

  /**
   * Connects this task to its tree neighbours.
   *
   * @param ticket the driver's {@link Rendezvous} and the training's wire settings
   * @param cancelled whether the task was killed (checked while waiting)
   */
  public static PeerLinks connect(Rendezvous.Ticket ticket, Seat seat, BooleanSupplier cancelled)
      throws IOException {
    int[] children = RoundTree.children(seat.worker, seat.workers);
    PeerLinks links = new PeerLinks(seat, ticket.wire, cancelled);
    try {
      int port = children.length > 0 ? links.listen(children) : 0;
      String[] hosts = new String[seat.workers];
      int[] ports = new int[seat.workers];
      links.meet(ticket, seat.advertisedPort != 0 ? seat.advertisedPort : port, hosts, ports);
      int parent = RoundTree.parent(seat.worker);
      if (parent >= 0) {
        Connection c = Connection.dial(hosts[parent], ports[parent], ticket.wire,
            Handshake.PEER, cancelled, "worker " + parent + " (" + hosts[parent] + ":"
                + ports[parent] + ")");
        links.attach(parent, c);
        c.send(ByteBuffer.allocate(HELLO_BYTES).putLong(seat.group).putInt(seat.worker).flip());
      }
      links.acceptChildren(children.length);
      return links;
    } catch (IOException | RuntimeException e) {
      links.close();
      throw e;
    }
  }

  /** Opens the listening gate for {@code children}; returns its port. */
  private int listen(int[] children) throws IOException {
    boolean[] expected = new boolean[seat.workers];
    for (int c : children) {
      expected[c] = true;
    }
    // On the gate's thread: a child of this group that has not arrived yet is handed over.
    Gate.Arrival arrival = (guest, hello) -> {
      long group = hello.remaining() == HELLO_BYTES ? hello.getLong() : ~seat.group;
      int from = group == seat.group ? hello.getInt() : -1;
      if (from < 0 || from >= seat.workers || !expected[from]) {
        throw new IOException("an introduction from worker " + from + " of group " + group
            + ", not a child of worker " + seat.worker + " in group " + seat.group);
      }
      expected[from] = false;
      arrivals.add(new Arrived(from, guest.detach()));
    };
    listener = Gate.open(InetAddress.getByName(seat.bindHost), 0, wire, Handshake.PEER,
        HELLO_BYTES, arrival, "spark-perceptron barrier listener of worker " + seat.worker);
    return listener.port();
  }

  private void meet(Rendezvous.Ticket ticket, int port, String[] hosts, int[] ports)
      throws IOException {
    String where = "the driver's barrier rendezvous at " + ticket.host + ":" + ticket.port;
    try (Connection c = Connection.dial(ticket.host, ticket.port, ticket.wire,
        Handshake.RENDEZVOUS, cancelled, where)) {
      c.keepAlive(wire.livenessMillis);
      c.send(Rendezvous.registration(seat.group, seat.workers, seat.worker, port, seat.host));
      ByteBuffer reply = c.receive(Rendezvous.maxAddressesBytes(seat.workers),
          Frames.NO_DEADLINE, cancelled, where + " (waiting for the other tasks of the stage)");
      Rendezvous.readAddresses(reply, hosts, ports);
    }
  }

  private void attach(int peer, Connection c) throws IOException {
    c.keepAlive(wire.livenessMillis);
    links[peer] = c;
  }

  private void acceptChildren(int children) throws IOException {
    for (int missing = children; missing > 0; ) {
      Arrived arrived;
      try {
        arrived = arrivals.poll(Frames.TICK_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for the workers"
            + " that send to worker " + seat.worker);
      }
      if (arrived == null) {
        Frames.check(Frames.NO_DEADLINE, cancelled, "the workers that send to worker "
            + seat.worker);
        continue;
      }
      attach(arrived.worker, arrived.connection);
      missing--;
    }
    if (listener != null) {
      listener.close();
      listener = null;
    }
  }

  @Override
  public void send(int peer, ByteBuffer frame) throws IOException {
    bytesSent += links[peer].send(frame);
  }

  @Override
  public ByteBuffer receive(int peer) throws IOException {
    return links[peer].receive(seat.maxFrameBytes, Frames.NO_DEADLINE, cancelled,
        "worker " + peer);
  }

  /** Bytes this task sent to other tasks, framing included. */
  public long bytesSent() {
    return bytesSent;
  }

  @Override
  public void close() {
    if (listener != null) {
      listener.close();
      listener = null;
    }
    for (Connection c : links) {
      if (c != null) {
        c.close();
      }
    }
    for (Arrived left; (left = arrivals.poll()) != null; ) {
      left.connection.close();
    }
  }
}
