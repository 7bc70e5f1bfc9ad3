package io.github.sparkperceptron.internal.exchange;

import java.io.IOException;
import java.io.Serializable;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The driver's meeting point for the tasks of a barrier stage: each task registers (its worker
 * and the address it listens on) and, once all W tasks of its stage attempt have registered, every
 * one of them receives the W addresses and the connection closes. Nothing else passes here: the
 * rounds' changes travel between the workers ({@link PeerLinks}).
 *
 * <p>Why not {@code BarrierTaskContext.allGather}: it waits for its reply in whole seconds
 * ({@code Thread.sleep(1000)} between checks in Spark 4.2's {@code BarrierTaskContext.runBarrier}),
 * so even one address exchange per epoch would cost about a second; this costs a few TCP round
 * trips. XGBoost's tracker and Vowpal Wabbit's spanning-tree daemon play the same part, and
 * admit any client that sends the expected numbers (XGBoost checks a fixed magic number, Vowpal
 * Wabbit none, and allocates what the client's count asks for); here only a task that proves it
 * holds the training's secret is heard, and nothing a connection sends is allocated beyond a
 * fixed bound ({@link Gate}).
 *
 * <p>Tasks of one stage attempt share a group key; a registration of a later attempt of the same
 * stage drops the groups of earlier attempts (their tasks are being killed) and refuses any of
 * their stragglers. Registrations are served by the {@link Gate}'s one thread, all at once.
 */
public final class Rendezvous implements AutoCloseable {
  /** The longest host name a registration may carry (DNS names are at most 253 bytes). */
  static final int MAX_HOST_BYTES = 255;
  /** The most tasks a barrier stage may have here (a bound for the addresses' frame). */
  static final int MAX_WORKERS = 1 << 16;
  /** Bytes of a registration: group key, W, worker, port, host length, host. */
  static final int MAX_REGISTRATION_BYTES = 8 + 4 + 4 + 4 + 4 + MAX_HOST_BYTES;

  private final Gate gate;
  private final String advertisedHost;
  private final WireSettings wire;
  /** Touched on the gate's thread only. */
  private final Map<Long, Group> groups = new HashMap<>();
  /** The latest attempt seen of each stage: registrations of older attempts are refused. */
  private final Map<Long, Long> latestAttempt = new HashMap<>();
  private volatile long completedGroups;

  /** The tasks of one stage attempt that registered so far, by worker. */
  private static final class Group {
    final int workers;
    final Gate.Guest[] guests;
    final byte[][] hosts;
    final int[] ports;
    int registered;

    Group(int workers) {
      this.workers = workers;
      this.guests = new Gate.Guest[workers];
      this.hosts = new byte[workers][];
      this.ports = new int[workers];
    }
  }

  private Rendezvous(String advertisedHost, WireSettings wire, InetAddress bind, int port)
      throws IOException {
    this.advertisedHost = advertisedHost;
    this.wire = wire;
    this.gate = Gate.open(bind, port, wire, Handshake.RENDEZVOUS, MAX_REGISTRATION_BYTES,
        this::register, "spark-perceptron barrier rendezvous");
  }

  /**
   * Listens on {@code bindHost}:{@code port} (0: any free port) and serves registrations on a
   * daemon thread until {@link #close()}.
   *
   * @param advertisedHost the host name the tasks connect to (the driver's)
   * @param wire the training's secret and timeouts
   */
  public static Rendezvous start(String bindHost, String advertisedHost, int port,
      WireSettings wire) throws IOException {
    return new Rendezvous(advertisedHost, wire, InetAddress.getByName(bindHost), port);
  }

  /**
   * What a task needs to join this rendezvous: where it is and the training's wire settings.
   * Small and serializable: it travels in the task's closure.
   */
  public static final class Ticket implements Serializable {
    private static final long serialVersionUID = 2L;
    final String host;
    final int port;
    final WireSettings wire;

    public Ticket(String host, int port, WireSettings wire) {
      this.host = host;
      this.port = port;
      this.wire = wire;
    }

    /** The same ticket pointing at another port (a test's black hole). */
    public Ticket atPort(int otherPort) {
      return new Ticket(host, otherPort, wire);
    }
  }

  /** This rendezvous' ticket for the tasks. */
  public Ticket ticket() {
    return new Ticket(advertisedHost, port(), wire);
  }

  /** The host the tasks connect to. */
  public String host() {
    return advertisedHost;
  }

  /** The port it listens on. */
  public int port() {
    return gate.port();
  }

  /** Stage attempts whose W tasks all received their addresses so far. */
  public long completedGroups() {
    return completedGroups;
  }

  /** Connections refused so far (they did not authenticate, or sent a bad registration). */
  public long refusedConnections() {
    return gate.refused();
  }

  /** Runs on the gate's thread for every authenticated registration. */
  private void register(Gate.Guest guest, ByteBuffer frame) throws IOException {
    if (frame.remaining() < MAX_REGISTRATION_BYTES - MAX_HOST_BYTES) {
      throw new IOException("a registration of " + frame.remaining() + " bytes");
    }
    long key = frame.getLong();
    int workers = frame.getInt();
    int worker = frame.getInt();
    int port = frame.getInt();
    int hostLength = frame.getInt();
    if (workers < 1 || workers > MAX_WORKERS || worker < 0 || worker >= workers || port < 0
        || port > 65535 || hostLength < 1 || hostLength != frame.remaining()) {
      throw new IOException("a registration of worker " + worker + " of " + workers + ", port "
          + port + ", host of " + hostLength + " bytes");
    }
    byte[] host = new byte[hostLength];
    frame.get(host);
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
    if (g.guests[worker] != null) {
      // The same task registering again (authenticated, so one of ours): the newer connection
      // is the one it waits on.
      g.guests[worker].close();
    } else {
      g.registered++;
    }
    g.guests[worker] = guest;
    g.hosts[worker] = host;
    g.ports[worker] = port;
    if (g.registered == workers) {
      groups.remove(key);
      completedGroups++;
      ByteBuffer reply = addresses(g);
      for (Gate.Guest s : g.guests) {
        try {
          s.replyAndClose(reply.duplicate());
        } catch (IOException | RuntimeException e) {
          // That task left before its addresses arrived: its stage attempt fails without us.
          s.close();
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
        for (Gate.Guest s : e.getValue().guests) {
          if (s != null) {
            s.close();
          }
        }
        it.remove();
      }
    }
  }

  private static ByteBuffer addresses(Group g) {
    int size = 4;
    for (int p = 0; p < g.workers; p++) {
      size += 8 + g.hosts[p].length;
    }
    ByteBuffer out = ByteBuffer.allocate(size).putInt(g.workers);
    for (int p = 0; p < g.workers; p++) {
      out.putInt(g.ports[p]).putInt(g.hosts[p].length).put(g.hosts[p]);
    }
    return out.flip();
  }

  /** The most bytes the addresses of {@code workers} tasks take. */
  static int maxAddressesBytes(int workers) {
    return 4 + workers * (8 + MAX_HOST_BYTES);
  }

  /**
   * The registration a task sends: group key, W, its worker, its port and host.
   */
  static ByteBuffer registration(long key, int workers, int worker, int port, String host) {
    byte[] h = host.getBytes(StandardCharsets.UTF_8);
    if (h.length < 1 || h.length > MAX_HOST_BYTES) {
      throw new IllegalArgumentException("a host name of " + h.length + " bytes: " + host);
    }
    ByteBuffer out = ByteBuffer.allocate(8 + 4 + 4 + 4 + 4 + h.length);
    out.putLong(key).putInt(workers).putInt(worker).putInt(port).putInt(h.length).put(h);
    return out.flip();
  }

  /**
   * The addresses of a reply: hosts[p], ports[p] of every worker p; every count checked against
   * the bytes there before anything is allocated.
   */
  static void readAddresses(ByteBuffer reply, String[] hosts, int[] ports) throws IOException {
    int workers = reply.remaining() >= 4 ? reply.getInt() : -1;
    if (workers != hosts.length) {
      throw new IOException("the rendezvous answered with " + workers + " addresses, expected "
          + hosts.length);
    }
    for (int p = 0; p < workers; p++) {
      int port = reply.remaining() >= 8 ? reply.getInt() : -1;
      int length = port >= 0 ? reply.getInt() : -1;
      if (port < 0 || port > 65535 || length < 1 || length > MAX_HOST_BYTES
          || length > reply.remaining()) {
        throw new IOException("the rendezvous' address of worker " + p + " is malformed");
      }
      byte[] h = new byte[length];
      reply.get(h);
      ports[p] = port;
      hosts[p] = new String(h, StandardCharsets.UTF_8);
    }
  }

  /** Stops serving; tasks still waiting for their addresses see the connection close. */
  @Override
  public void close() {
    gate.close();
  }
}
