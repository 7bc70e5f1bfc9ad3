package io.github.sparkperceptron.internal.exchange;

import io.github.sparkperceptron.internal.mixing.RoundTree;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;

/**
 * One barrier task's connections to its neighbours in {@link RoundTree}'s tree (its parent and
 * its children), opened once per stage attempt and used by every mixing round of the epoch.
 *
 * <p>Setting up: listen on a free port (when the task has children), register with the driver's
 * {@link Rendezvous} and receive every task's address, connect to the parent and introduce
 * itself (token, group, worker), accept the children. Every wait checks whether the task was
 * killed and gives up at the barrier timeout ({@link Frames}). Frames are length-prefixed and
 * written with Nagle's algorithm off, so a round's small messages leave at once.
 */
public final class PeerLinks implements RoundTree.Link, AutoCloseable {
  private final int worker;
  private final long timeoutNanos;
  private final BooleanSupplier cancelled;
  private final Socket[] sockets;
  private final OutputStream[] outs;
  private final ServerSocket listener;
  private long bytesSent;

  private PeerLinks(int worker, int workers, long timeoutNanos, BooleanSupplier cancelled,
      ServerSocket listener) {
    this.worker = worker;
    this.timeoutNanos = timeoutNanos;
    this.cancelled = cancelled;
    this.sockets = new Socket[workers];
    this.outs = new OutputStream[workers];
    this.listener = listener;
  }

  /**
   * Connects this task to its tree neighbours.
   *
   * @param rendezvous the driver's {@link Rendezvous}: where, the training's secret, how long
   *     any single wait may take
   * @param group the stage attempt (stage · 2³² + attempt): tasks of other attempts never meet
   * @param ownHost the host name the other tasks reach this one at
   * @param cancelled whether the task was killed (checked while waiting)
   */
  public static PeerLinks connect(Rendezvous.Ticket rendezvous, long group, int workers,
      int worker, String ownHost, BooleanSupplier cancelled) throws IOException {
    long token = rendezvous.token;
    int timeoutMillis = rendezvous.timeoutMillis;
    int[] children = RoundTree.children(worker, workers);
    ServerSocket listener = null;
    if (children.length > 0) {
      listener = new ServerSocket();
      listener.bind(new InetSocketAddress(0), Math.max(50, children.length));
    }
    PeerLinks links = new PeerLinks(worker, workers, timeoutMillis * 1_000_000L, cancelled,
        listener);
    try {
      String[] hosts = new String[workers];
      int[] ports = new int[workers];
      links.meet(rendezvous.host, rendezvous.port, Rendezvous.registration(token, group, workers,
          worker, listener == null ? 0 : listener.getLocalPort(), ownHost), hosts, ports,
          timeoutMillis);
      int parent = RoundTree.parent(worker);
      if (parent >= 0) {
        Socket s = links.open(hosts[parent], ports[parent], timeoutMillis,
            "worker " + parent + " (" + hosts[parent] + ":" + ports[parent] + ")");
        links.attach(parent, s);
        ByteBuffer hello = ByteBuffer.allocate(20).putLong(token).putLong(group)
            .putInt(worker);
        hello.flip();
        links.send(parent, hello);
      }
      links.acceptChildren(children, token, group);
      return links;
    } catch (IOException | RuntimeException e) {
      links.close();
      throw e;
    }
  }

  private void meet(String host, int port, ByteBuffer registration, String[] hosts, int[] ports,
      int timeoutMillis) throws IOException {
    try (Socket s = open(host, port, timeoutMillis, "the driver's barrier rendezvous at " + host
        + ":" + port)) {
      Frames.writeFrame(new BufferedOutputStream(s.getOutputStream()), registration);
      ByteBuffer reply = Frames.readFrame(s, System.nanoTime() + timeoutNanos, cancelled,
          "the driver's barrier rendezvous (waiting for the other tasks of the stage)");
      Rendezvous.readAddresses(reply, hosts, ports);
    }
  }

  private Socket open(String host, int port, int timeoutMillis, String what) throws IOException {
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      s.connect(new InetSocketAddress(host, port), timeoutMillis);
      return s;
    } catch (IOException e) {
      s.close();
      throw new IOException("cannot connect to " + what + ": " + e.getMessage(), e);
    }
  }

  private void attach(int peer, Socket s) throws IOException {
    sockets[peer] = s;
    outs[peer] = new BufferedOutputStream(s.getOutputStream(), 1 << 16);
  }

  private void acceptChildren(int[] children, long token, long group) throws IOException {
    int missing = children.length;
    long deadline = System.nanoTime() + timeoutNanos;
    listenerTicks();
    while (missing > 0) {
      Socket s;
      try {
        s = listener.accept();
      } catch (SocketTimeoutException tick) {
        Frames.check(deadline, cancelled, "the workers that send to worker " + worker);
        continue;
      }
      s.setTcpNoDelay(true);
      ByteBuffer hello;
      try {
        hello = Frames.readFrame(s, Math.min(deadline, System.nanoTime() + Frames.HELLO_NANOS),
            cancelled, "a connecting worker");
      } catch (IOException e) {
        s.close();
        continue;
      }
      int from = hello.remaining() == 20 && hello.getLong() == token && hello.getLong() == group
          ? hello.getInt() : -1;
      boolean expected = false;
      for (int c : children) {
        expected |= c == from;
      }
      if (!expected || sockets[from] != null) {
        s.close();
        continue;
      }
      attach(from, s);
      missing--;
    }
  }

  private void listenerTicks() throws IOException {
    if (listener != null) {
      listener.setSoTimeout(Frames.TICK_MILLIS);
    }
  }

  @Override
  public void send(int peer, ByteBuffer frame) throws IOException {
    bytesSent += Frames.writeFrame(outs[peer], frame);
  }

  @Override
  public ByteBuffer receive(int peer) throws IOException {
    return Frames.readFrame(sockets[peer], System.nanoTime() + timeoutNanos, cancelled,
        "worker " + peer);
  }

  /** Bytes this task sent to other tasks, framing included. */
  public long bytesSent() {
    return bytesSent;
  }

  @Override
  public void close() {
    for (Socket s : sockets) {
      if (s != null) {
        try {
          s.close();
        } catch (IOException ignored) {
          // The stage is over for this task.
        }
      }
    }
    if (listener != null) {
      try {
        listener.close();
      } catch (IOException ignored) {
        // As above.
      }
    }
  }
}
