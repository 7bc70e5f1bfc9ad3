package io.github.sparkperceptron.testing;

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
 * <p>The ports come from a supplier: fixed ones, or {@link #newListenersOfThisJvm} (every TCP
 * port this JVM started listening on after the call, found in {@code /proc}: the rendezvous and
 * the tasks' listeners of a local-mode training, never another process' ports).
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
        // Looking the ports up costs milliseconds: hammer the ones found for a while first.
        int[] targets = ports.get();
        long until = System.nanoTime() + 20_000_000L;
        do {
          for (int port : targets) {
            if (stop) {
              break;
            }
            act(port);
          }
          drip();
          Thread.sleep(kind == Kind.SLOW_LORIS ? 100 : targets.length == 0 ? 2 : 1);
        } while (!stop && targets.length > 0 && System.nanoTime() < until);
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
    thread.interrupt();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The TCP ports this JVM listens on now, on loopback or on every interface, that it did not
   * listen on at this call, plus {@code alsoFixed} (Linux: read from {@code /proc}; elsewhere only
   * the fixed ones). Only this process' sockets: a stranger in a test never knocks on another
   * program's door.
   */
  public static Supplier<int[]> newListenersOfThisJvm(int... alsoFixed) {
    Set<Integer> before = listenersOfThisJvm(null);
    Set<String> ours = new HashSet<>();
    Set<String> others = new HashSet<>();
    return () -> {
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
      for (int p : alsoFixed) {
        now.add(p);
      }
      return now.stream().mapToInt(Integer::intValue).toArray();
    };
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
   * null} each, from {@code /proc/net/tcp} and {@code tcp6}.
   */
  private static List<String[]> listening() {
    List<String[]> out = new ArrayList<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      List<String> lines;
      try {
        lines = Files.readAllLines(Path.of(table));
      } catch (IOException e) {
        continue;
      }
      for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
        String[] f = line.trim().split("\\s+");
        if (f.length < 10 || !f[3].equals("0A")) {
          continue;
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
