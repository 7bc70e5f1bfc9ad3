package io.github.sparkperceptron.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Strangers on the network: connections to the barrier exchange's ports that are not one of the
 * training's tasks, of the kinds a security review tries, hammering a set of ports from one
 * thread until closed. Loopback only, and bounded: at most {@value #MAX_HELD} connections held
 * open at once, a pause of about a millisecond between rounds of attempts (so that the stranger
 * is a hammer, not a busy loop stealing the training's cores).
 *
 * <p>The ports come from a supplier: fixed ones, or a {@link Scout} from
 * {@link #newListenersOfThisJvm} (every TCP port this JVM started listening on after the call,
 * found in {@code /proc}: the tasks' listeners of a local-mode training, never another process'
 * ports), which the strangers attack first.
 */
public final class Strangers implements AutoCloseable {
  /** Connections held open at most (the oldest closed first). */
  public static final int MAX_HELD = 1000;

  /** A kind of stranger. */
  public enum Kind {
    /** A frame header announcing 2³¹ − 1 bytes, then silence (the one packet). */
    HUGE_LENGTH("a frame header announcing 2^31 - 1 bytes"),
    /** A frame header announcing −1 bytes. */
    NEGATIVE_LENGTH("a frame header announcing -1 bytes"),
    /** The header of a hello and half its bytes, then silence. */
    HALF_FRAME("half a hello, then silence"),
    /** Connects and sends nothing. */
    SILENT("connects and sends nothing"),
    /** One byte of a well-formed hello every ~100 ms. */
    SLOW_LORIS("one byte of a hello every 100 ms"),
    /** 4 KiB of random bytes, then closes. */
    GARBAGE("4 KiB of random bytes"),
    /** An HTTP request, as a port scanner sends. */
    HTTP("an HTTP request"),
    /** A well-formed hello of the protocol, then a guessed proof and a registration. */
    NO_SECRET("the protocol without the secret: hello, guessed proof, registration"),
    /** Connects and resets at once (SO_LINGER 0). */
    RESET("connects and resets at once"),
    /** 200 connections at a time, held open (up to the held bound), again and again. */
    FLOOD("a flood: 200 connections a round, up to 1000 held open");

    public final String description;

    Kind(String description) {
      this.description = description;
    }
  }

  private final Kind kind;
  private final Supplier<int[]> ports;
  private final Thread thread;
  private final ArrayDeque<Socket> held = new ArrayDeque<>();
  private final Random random = new Random(30);
  private final AtomicLong connections = new AtomicLong();
  private final Set<Integer> portsHit = ConcurrentHashMap.newKeySet();
  private volatile boolean stop;

  private Strangers(Kind kind, Supplier<int[]> ports) {
    this.kind = kind;
    this.ports = ports;
    this.thread = new Thread(this::run, "stranger " + kind);
    this.thread.setDaemon(true);
  }

  /** Starts a stranger of {@code kind} hammering whatever ports {@code ports} names. */
  public static Strangers start(Kind kind, Supplier<int[]> ports) {
    Strangers s = new Strangers(kind, ports);
    s.thread.start();
    return s;
  }

  /** Always these ports. */
  public static Supplier<int[]> fixed(int... ports) {
    return () -> ports;
  }

  /** Connections opened so far. */
  public long connections() {
    return connections.get();
  }

  /** The ports this stranger connected to so far. */
  public Set<Integer> portsHit() {
    return new TreeSet<>(portsHit);
  }

  private void run() {
    try {
      while (!stop) {
        int[] targets = ports.get();
        for (int port : targets) {
          if (stop) {
            break;
          }
          act(port);
        }
        drip();
        Thread.sleep(kind == Kind.SLOW_LORIS ? 100 : targets.length == 0 ? 2 : 1);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      synchronized (held) {
        for (Socket s : held) {
          closeQuietly(s);
        }
        held.clear();
      }
    }
  }

  private void act(int port) {
    int times = kind == Kind.FLOOD ? 200 : 1;
    for (int i = 0; i < times && !stop; i++) {
      Socket s = new Socket();
      try {
        s.connect(new InetSocketAddress("127.0.0.1", port), 500);
        connections.incrementAndGet();
        portsHit.add(port);
        s.setSoTimeout(1000);
        OutputStream out = s.getOutputStream();
        switch (kind) {
          case HUGE_LENGTH:
            out.write(ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array());
            hold(s);
            break;
          case NEGATIVE_LENGTH:
            out.write(ByteBuffer.allocate(4).putInt(-1).array());
            hold(s);
            break;
          case HALF_FRAME:
            out.write(ByteBuffer.allocate(4 + 19).putInt(38).put(hello(), 0, 19).array());
            hold(s);
            break;
          case SILENT:
          case FLOOD:
          case SLOW_LORIS:
            hold(s);
            break;
          case GARBAGE:
            byte[] junk = new byte[4096];
            random.nextBytes(junk);
            out.write(junk);
            closeQuietly(s);
            break;
          case HTTP:
            out.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
            closeQuietly(s);
            break;
          case NO_SECRET:
            withoutTheSecret(s, out);
            closeQuietly(s);
            break;
          case RESET:
            s.setSoLinger(true, 0);
            closeQuietly(s);
            break;
          default:
            throw new IllegalStateException(kind.toString());
        }
      } catch (IOException e) {
        // Refused, reset or closed by the other end: what a stranger should get.
        closeQuietly(s);
      }
    }
  }

  /** A hello of the exchange's protocol: magic "SPB1", a purpose, clear, a random nonce. */
  private byte[] hello() {
    byte[] nonce = new byte[32];
    random.nextBytes(nonce);
    return ByteBuffer.allocate(38).putInt(0x53504231).put((byte) (1 + random.nextInt(2)))
        .put((byte) 0).put(nonce).array();
  }

  private void withoutTheSecret(Socket s, OutputStream out) throws IOException {
    out.write(ByteBuffer.allocate(42).putInt(38).put(hello()).array());
    InputStream in = s.getInputStream();
    byte[] challenge = new byte[68];
    int got = 0;
    while (got < challenge.length) {
      int n = in.read(challenge, got, challenge.length - got);
      if (n < 0) {
        return;
      }
      got += n;
    }
    byte[] proof = new byte[32];
    random.nextBytes(proof);
    out.write(ByteBuffer.allocate(36).putInt(32).put(proof).array());
    byte[] registration = ByteBuffer.allocate(4 + 33).putInt(33).putLong(1L << 32).putInt(2)
        .putInt(1).putInt(4242).putInt(9).put("127.0.0.1".getBytes(StandardCharsets.US_ASCII))
        .array();
    out.write(registration);
    // The answer, if any: the stranger waits for it (and should see the connection close).
    while (in.read() >= 0) {
      // Drain.
    }
  }

  private void hold(Socket s) {
    synchronized (held) {
      held.addLast(s);
      while (held.size() > MAX_HELD) {
        closeQuietly(held.pollFirst());
      }
    }
  }

  /** The slow loris' next byte on every connection it holds. */
  private void drip() {
    if (kind != Kind.SLOW_LORIS) {
      return;
    }
    byte[] h = hello();
    synchronized (held) {
      for (Socket s : held) {
        try {
          s.getOutputStream().write(h[random.nextInt(h.length)]);
        } catch (IOException e) {
          closeQuietly(s);
        }
      }
      held.removeIf(Socket::isClosed);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // A stranger does not care.
    }
  }

  /** Stops the stranger and closes what it holds. */
  @Override
  public void close() {
    stop = true;
    interruptAndJoin(thread);
  }

  /** Wakes {@code t} from its sleep and waits (10 s at most) for it to see its stop flag. */
  private static void interruptAndJoin(Thread t) {
    t.interrupt();
    try {
      t.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * A {@link Scout} of the TCP ports this JVM starts listening on after this call, on loopback or
   * on every interface, followed by {@code alsoFixed} (Linux: read from {@code /proc}; elsewhere
   * only the fixed ones). Only this process' sockets: a stranger in a test never knocks on
   * another program's door. Close it when the strangers are done.
   */
  public static Scout newListenersOfThisJvm(int... alsoFixed) {
    return new Scout(alsoFixed);
  }

  /**
   * Looks for this JVM's new listening ports from a thread of its own, every ten
   * milliseconds, so that a stranger takes the latest list at once instead of pausing its attacks
   * for a look in {@code /proc} (milliseconds with thousands of sockets open, far more on a loaded
   * machine). A task's listener lives for its barrier stage only. Counts what it saw, for the
   * message of a test whose strangers missed the listeners: a scout that never saw one and
   * strangers that never reached one it saw are different failures.
   */
  public static final class Scout implements Supplier<int[]>, AutoCloseable {
    private final int[] fixed;
    private final Set<Integer> before = listenersOfThisJvm(null);
    private final Set<String> ours = new HashSet<>();
    private final Set<String> others = new HashSet<>();
    private final Set<Integer> seen = ConcurrentHashMap.newKeySet();
    private final AtomicLong looks = new AtomicLong();
    private final Thread thread;
    private volatile int[] latest;
    private volatile int mostAtOnce;
    private volatile boolean stop;

    private Scout(int[] fixed) {
      this.fixed = fixed.clone();
      this.latest = fixed.clone();
      this.thread = new Thread(this::watch, "scout of this JVM's listeners");
      this.thread.setDaemon(true);
      this.thread.start();
    }

    /** The new listeners found by the latest look, then the fixed ports. */
    @Override
    public int[] get() {
      return latest;
    }

    /** What the scout saw: its looks and the new listeners it found, for a test's message. */
    public String report() {
      return looks.get() + " looks in /proc, " + seen.size() + " new listeners seen ("
          + mostAtOnce + " at most at once)";
    }

    /** The new listeners seen so far, whether open now or not. */
    public Set<Integer> seen() {
      return new TreeSet<>(seen);
    }

    private void watch() {
      while (!stop) {
        int[] found = look();
        seen.addAll(Arrays.stream(found).boxed().toList());
        mostAtOnce = Math.max(mostAtOnce, found.length);
        int[] next = Arrays.copyOf(found, found.length + fixed.length);
        System.arraycopy(fixed, 0, next, found.length, fixed.length);
        latest = next;
        looks.incrementAndGet();
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    /** This JVM's listeners now, less those it had at the start and the fixed ports. */
    private int[] look() {
      Set<Integer> now = new TreeSet<>();
      List<String[]> candidates = listening();
      boolean unknown = false;
      for (String[] c : candidates) {
        unknown |= !ours.contains(c[1]) && !others.contains(c[1]);
      }
      if (unknown) {
        Set<String> mine = socketsOfThisJvm();
        for (String[] c : candidates) {
          (mine.contains(c[1]) ? ours : others).add(c[1]);
        }
      }
      for (String[] c : candidates) {
        if (ours.contains(c[1])) {
          now.add(Integer.parseInt(c[0]));
        }
      }
      now.removeAll(before);
      for (int p : fixed) {
        now.remove(p);
      }
      return now.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Stops looking. */
    @Override
    public void close() {
      stop = true;
      interruptAndJoin(thread);
    }
  }

  /**
   * This JVM's listening TCP ports bound to loopback or to every interface; when
   * {@code wildcard} is not null, the ports bound to every interface are added to it too.
   */
  public static Set<Integer> listenersOfThisJvm(Set<Integer> wildcard) {
    Set<Integer> out = new TreeSet<>();
    Set<String> mine = socketsOfThisJvm();
    for (String[] c : listening()) {
      if (mine.contains(c[1])) {
        int port = Integer.parseInt(c[0]);
        out.add(port);
        if (c[2] != null && wildcard != null) {
          wildcard.add(port);
        }
      }
    }
    return out;
  }

  /**
   * The machine's listening TCP sockets on loopback or every interface: {port, inode, "any" or
   * null} each, from {@code /proc/net/tcp} and {@code tcp6}. Linux lists the listening sockets
   * first (its iterator walks the listening hash before the established one), so the read stops
   * at the first other line: under fire the tables hold tens of thousands of the strangers'
   * connections, most in TIME_WAIT, and reading them all took the soak's scout 0.7 s a look.
   */
  private static List<String[]> listening() {
    List<String[]> out = new ArrayList<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      try (BufferedReader in = Files.newBufferedReader(Path.of(table),
          StandardCharsets.US_ASCII)) {
        in.readLine();
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          String[] f = line.trim().split("\\s+");
          if (f.length < 10 || !f[3].equals("0A")) {
            break;
          }
          String[] local = f[1].split(":");
          String ip = local[0];
          boolean any = ip.matches("0+");
          boolean loopback = ip.equals("0100007F") || ip.endsWith("FFFF00000100007F")
              || ip.equals("00000000000000000000000001000000");
          if (any || loopback) {
            out.add(new String[] {String.valueOf(Integer.parseInt(local[1], 16)), f[9],
                any ? "any" : null});
          }
        }
      } catch (IOException e) {
        // No such table (no IPv6, not Linux): nothing listens there.
      }
    }
    return out;
  }

  /** The inodes of this process' sockets ({@code /proc/self/fd}). */
  private static Set<String> socketsOfThisJvm() {
    Set<String> inodes = new HashSet<>();
    Path fds = Path.of("/proc/self/fd");
    if (!Files.isDirectory(fds)) {
      return inodes;
    }
    try (Stream<Path> list = Files.list(fds)) {
      for (Path fd : (Iterable<Path>) list::iterator) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            inodes.add(target.substring(8, target.length() - 1));
          }
        } catch (IOException | UnsupportedOperationException e) {
          // Closed meanwhile.
        }
      }
    } catch (IOException e) {
      return inodes;
    }
    return inodes;
  }

  /** Every kind, in order. */
  public static List<Kind> all() {
    return new ArrayList<>(List.of(Kind.values()));
  }
}
