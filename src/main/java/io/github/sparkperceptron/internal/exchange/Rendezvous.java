package io.github.sparkperceptron.internal.exchange;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's meeting point for the tasks of a barrier stage: each task registers (its worker
 * and the address it listens on) and, once all W tasks of its stage attempt have registered, every
 * one of them receives the W addresses and the connection closes. Nothing else passes here: the
 * rounds' changes travel between the workers ({@link PeerLinks}).
 *
 * <p>Why not {@code BarrierTaskContext.allGather}: it waits for its reply in whole seconds
 * ({@code Thread.sleep(1000)} between checks in Spark 4.2's {@code BarrierTaskContext.runBarrier}),
 * so even one address exchange per epoch would cost about a second; this costs one TCP round
 * trip. XGBoost4J-Spark's tracker and Vowpal Wabbit's spanning-tree daemon play the same part.
 *
 * <p>Tasks of one stage attempt share a group key; a registration of a later attempt of the same
 * stage drops the groups of earlier attempts (their tasks are being killed) and refuses any of
 * their stragglers, and a registration without the training's token is refused, so stray
 * connections cannot join a group. One thread; a registration is a few dozen bytes.
 */
public final class Rendezvous implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Rendezvous.class);

  private final ServerSocket server;
  private final String advertisedHost;
  private final long token;
  private final int timeoutMillis;
  private final Thread thread;
  private final Map<Long, Group> groups = new HashMap<>();
  /** The latest attempt seen of each stage: registrations of older attempts are refused. */
  private final Map<Long, Long> latestAttempt = new HashMap<>();
  private volatile boolean closed;
  private long completedGroups;

  /** The tasks of one stage attempt that registered so far, by worker. */
  private static final class Group {
    final int workers;
    final Socket[] sockets;
    final String[] hosts;
    final int[] ports;
    int registered;

    Group(int workers) {
      this.workers = workers;
      this.sockets = new Socket[workers];
      this.hosts = new String[workers];
      this.ports = new int[workers];
    }
  }

  private Rendezvous(ServerSocket server, String advertisedHost, long token, int timeoutMillis) {
    this.server = server;
    this.advertisedHost = advertisedHost;
    this.token = token;
    this.timeoutMillis = timeoutMillis;
    this.thread = new Thread(this::serve, "spark-perceptron barrier rendezvous");
    this.thread.setDaemon(true);
  }

  /**
   * Listens on {@code bindHost}:{@code port} (0: any free port) and serves registrations on a
   * daemon thread until {@link #close()}.
   *
   * @param advertisedHost the host name the tasks connect to (the driver's)
   * @param token the training's secret: registrations without it are refused
   * @param timeoutMillis how long a registration may take to arrive once connected
   */
  public static Rendezvous start(String bindHost, String advertisedHost, int port, long token,
      int timeoutMillis) throws IOException {
    ServerSocket server = new ServerSocket();
    try {
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(InetAddress.getByName(bindHost), port), 1024);
    } catch (IOException e) {
      server.close();
      throw e;
    }
    Rendezvous r = new Rendezvous(server, advertisedHost, token, timeoutMillis);
    r.thread.start();
    return r;
  }

  /**
   * What a task needs to join this rendezvous: where it is, the training's secret and how long
   * any single wait may last. Small and serializable: it travels in the task's closure.
   */
  public static final class Ticket implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    final String host;
    final int port;
    final long token;
    final int timeoutMillis;

    public Ticket(String host, int port, long token, int timeoutMillis) {
      this.host = host;
      this.port = port;
      this.token = token;
      this.timeoutMillis = timeoutMillis;
    }
  }

  /** This rendezvous' ticket for the tasks. */
  public Ticket ticket() {
    return new Ticket(advertisedHost, port(), token, timeoutMillis);
  }

  /** The host the tasks connect to. */
  public String host() {
    return advertisedHost;
  }

  /** The port it listens on. */
  public int port() {
    return server.getLocalPort();
  }

  /** Stage attempts whose W tasks all received their addresses so far. */
  public synchronized long completedGroups() {
    return completedGroups;
  }

  private void serve() {
    while (!closed) {
      Socket socket;
      try {
        socket = server.accept();
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("Barrier rendezvous stopped accepting connections: {}", e.toString());
        }
        return;
      }
      try {
        register(socket);
      } catch (IOException | RuntimeException e) {
        LOG.debug("Refused a barrier registration from {}: {}", socket.getRemoteSocketAddress(),
            e.toString());
        closeQuietly(socket);
      }
    }
  }

  private void register(Socket socket) throws IOException {
    socket.setTcpNoDelay(true);
    ByteBuffer frame = Frames.readFrame(socket, System.nanoTime()
        + Math.min(timeoutMillis * 1_000_000L, Frames.HELLO_NANOS), () -> closed,
        "a registering task");
    if (frame.getLong() != token) {
      throw new IOException("wrong token");
    }
    long key = frame.getLong();
    int workers = frame.getInt();
    int worker = frame.getInt();
    int port = frame.getInt();
    byte[] hostBytes = new byte[frame.getInt()];
    frame.get(hostBytes);
    if (workers < 1 || worker < 0 || worker >= workers) {
      throw new IOException("worker " + worker + " of " + workers);
    }
    List<Socket> ready = null;
    byte[] reply = null;
    synchronized (this) {
      long stage = key >>> 32;
      long attempt = key & 0xffffffffL;
      Long latest = latestAttempt.get(stage);
      if (latest != null && attempt < latest) {
        throw new IOException("attempt " + attempt + " of stage " + stage + " was superseded");
      }
      latestAttempt.put(stage, attempt);
      dropEarlierAttempts(key);
      Group g = groups.computeIfAbsent(key, k -> new Group(workers));
      if (g.workers != workers) {
        throw new IOException("group of " + g.workers + " tasks, registration says " + workers);
      }
      if (g.sockets[worker] != null) {
        closeQuietly(g.sockets[worker]);
      } else {
        g.registered++;
      }
      g.sockets[worker] = socket;
      g.hosts[worker] = new String(hostBytes, StandardCharsets.UTF_8);
      g.ports[worker] = port;
      if (g.registered == workers) {
        groups.remove(key);
        completedGroups++;
        ready = List.of(g.sockets);
        reply = addresses(g);
      }
    }
    if (ready != null) {
      for (Socket s : ready) {
        try {
          OutputStream out = new BufferedOutputStream(s.getOutputStream());
          Frames.writeFrame(out, ByteBuffer.wrap(reply));
        } catch (IOException e) {
          LOG.debug("A barrier task left before its addresses arrived: {}", e.toString());
        } finally {
          closeQuietly(s);
        }
      }
    }
  }

  /** Closes the groups of earlier attempts of the key's stage (the key is stage · 2³² + attempt). */
  private void dropEarlierAttempts(long key) {
    long stage = key >>> 32;
    long attempt = key & 0xffffffffL;
    Iterator<Map.Entry<Long, Group>> it = groups.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Long, Group> e = it.next();
      if (e.getKey() >>> 32 == stage && (e.getKey() & 0xffffffffL) < attempt) {
        for (Socket s : e.getValue().sockets) {
          if (s != null) {
            closeQuietly(s);
          }
        }
        it.remove();
      }
    }
  }

  private static byte[] addresses(Group g) {
    List<byte[]> hosts = new ArrayList<>(g.workers);
    int size = 4;
    for (int p = 0; p < g.workers; p++) {
      byte[] h = g.hosts[p].getBytes(StandardCharsets.UTF_8);
      hosts.add(h);
      size += 8 + h.length;
    }
    ByteBuffer out = ByteBuffer.allocate(size).putInt(g.workers);
    for (int p = 0; p < g.workers; p++) {
      out.putInt(g.ports[p]).putInt(hosts.get(p).length).put(hosts.get(p));
    }
    return out.array();
  }

  /**
   * The registration a task sends: token, group key, W, its worker, its port and host.
   */
  static ByteBuffer registration(long token, long key, int workers, int worker, int port,
      String host) {
    byte[] h = host.getBytes(StandardCharsets.UTF_8);
    ByteBuffer out = ByteBuffer.allocate(8 + 8 + 4 + 4 + 4 + 4 + h.length);
    out.putLong(token).putLong(key).putInt(workers).putInt(worker).putInt(port)
        .putInt(h.length).put(h);
    out.flip();
    return out;
  }

  /** The addresses of a reply: hosts[p], ports[p] of every worker p. */
  static void readAddresses(ByteBuffer reply, String[] hosts, int[] ports) throws IOException {
    int workers = reply.getInt();
    if (workers != hosts.length) {
      throw new IOException("the rendezvous answered with " + workers + " addresses, expected "
          + hosts.length);
    }
    for (int p = 0; p < workers; p++) {
      ports[p] = reply.getInt();
      byte[] h = new byte[reply.getInt()];
      reply.get(h);
      hosts[p] = new String(h, StandardCharsets.UTF_8);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // Closing a socket nobody will read again.
    }
  }

  /** Stops serving; tasks still waiting for their addresses see the connection close. */
  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException ignored) {
      // Nothing to do: the thread ends either way.
    }
    synchronized (this) {
      for (Group g : groups.values()) {
        for (Socket s : g.sockets) {
          if (s != null) {
            closeQuietly(s);
          }
        }
      }
      groups.clear();
    }
    try {
      thread.join(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
