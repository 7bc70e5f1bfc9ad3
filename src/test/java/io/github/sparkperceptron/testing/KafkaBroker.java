package io.github.sparkperceptron.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Features;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real Kafka broker for tests: one KRaft node (broker and controller in one process) of Apache
 * Kafka 3.9.2 from Maven Central, running in the test JVM on 127.0.0.1 with ports the system
 * picks, its log in a directory of its own. 3.9.2 is the kafka-clients version Spark 4.2.0's
 * Kafka source is built with, so the broker and Spark share one client library (no second JVM
 * needed); its Scala 2.13 server runs on Spark's scala-library.
 *
 * <pre>{@code
 * try (KafkaBroker kafka = KafkaBroker.start(tmp)) {
 *   kafka.createTopic("rows", 1);
 *   kafka.produce("rows", List.of("1 3:0.5", "0 1:1"));
 *   spark.readStream().format("kafka").option("kafka.bootstrap.servers", kafka.bootstrapServers())
 *   ...
 * }
 * }</pre>
 */
public final class KafkaBroker implements AutoCloseable {
  private static final String CONTROLLER = "CONTROLLER";
  private static final long READY_TIMEOUT_MS = 120_000;

  private final Path logDir;
  private final int port;
  private final KafkaRaftServer server;
  private final Admin admin;

  private KafkaBroker(Path logDir, int port, KafkaRaftServer server, Admin admin) {
    this.logDir = logDir;
    this.port = port;
    this.server = server;
    this.admin = admin;
  }

  /**
   * Formats a log directory under {@code parent}, starts the node and waits until it answers.
   */
  public static KafkaBroker start(Path parent) throws Exception {
    Path logDir = Files.createTempDirectory(parent, "kafka-");
    int port = freePort();
    int controllerPort = freePort();
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + "," + CONTROLLER + "://127.0.0.1:"
        + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
    p.put("controller.listener.names", CONTROLLER);
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER + ":PLAINTEXT");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("log.dirs", logDir.toString());
    p.put("num.partitions", "1");
    p.put("auto.create.topics.enable", "false");
    // One node: every internal topic has one replica, and consumer groups start at once.
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("log.flush.interval.messages", "1");

    new Formatter().setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
        .setSupportedFeatures(Features.PRODUCTION_FEATURES)
        .setClusterId(Uuid.randomUuid().toString()).setNodeId(1)
        .setControllerListenerName(CONTROLLER).setMetadataLogDirectory(logDir.toString())
        .setDirectories(List.of(logDir.toString()))
        .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION).run();
    KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(p, false), Time.SYSTEM);
    server.startup();
    Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
        "127.0.0.1:" + port));
    KafkaBroker broker = new KafkaBroker(logDir, port, server, admin);
    try {
      broker.awaitReady();
    } catch (Exception | Error e) {
      broker.close();
      throw e;
    }
    return broker;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private void awaitReady() throws Exception {
    long deadline = System.currentTimeMillis() + READY_TIMEOUT_MS;
    while (true) {
      try {
        if (!admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).isEmpty()) {
          return;
        }
      } catch (ExecutionException | TimeoutException e) {
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException("The Kafka broker on 127.0.0.1:" + port
              + " did not answer in " + READY_TIMEOUT_MS / 1000 + " s", e);
        }
      }
      Thread.sleep(200);
    }
  }

  /** {@code 127.0.0.1:PORT}, for {@code kafka.bootstrap.servers}. */
  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** Creates a topic of {@code partitions} partitions (one replica) and waits for it. */
  public void createTopic(String topic, int partitions) throws Exception {
    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all()
        .get(60, TimeUnit.SECONDS);
  }

  /**
   * Sends {@code values} to partition 0 of {@code topic}, in order, each acknowledged before
   * this returns.
   */
  public void produce(String topic, List<String> values) throws Exception {
    Map<String, Object> conf = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
        ProducerConfig.LINGER_MS_CONFIG, 5);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(conf,
        new StringSerializer(), new StringSerializer())) {
      for (String v : values) {
        producer.send(new ProducerRecord<>(topic, 0, null, v));
      }
      producer.flush();
    }
  }

  /** Stops the node and deletes its log. */
  @Override
  public void close() {
    admin.close();
    server.shutdown();
    server.awaitShutdown();
    try (Stream<Path> files = Files.walk(logDir)) {
      for (Path f : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(f);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete the broker's log " + logDir, e);
    }
  }
}
