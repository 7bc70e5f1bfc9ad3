package io.github.sparkperceptron.internal.io;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;

/**
 * The Spark context's Hadoop configuration as the one-pass readers' tasks receive it: in a
 * broadcast made once and made again only when the configuration's properties changed.
 *
 * <p>Why not one broadcast per read: a stream reads a batch's files every few hundred
 * milliseconds, and the broadcast of a fresh copy (Hadoop's {@code Configuration.write} of some
 * thousand properties, Spark's 4 MB serialisation buffer, the block manager's registration) took
 * about 3% of a 50,000-row batch's driver thread in a wall-clock profile (BENCHMARKS.md, issue 32,
 * eighteenth stop). Comparing the properties with the broadcast's costs one pass over a map of
 * strings; a property set between two reads (a credential, a file system's option) is compared
 * like any other, so the executors never read a configuration older than the driver's at the
 * read's planning, which is what a broadcast per read gave.
 */
final class ShippedConfiguration {
  private static Entry last;

  private ShippedConfiguration() {}

  /** The broadcast the executors read {@code sc}'s Hadoop configuration from. */
  static synchronized Broadcast<Value> of(SparkContext sc) {
    Configuration conf = sc.hadoopConfiguration();
    Map<String, String> properties = properties(conf);
    Entry cached = last;
    if (cached != null && cached.context.get() == sc && !sc.isStopped()
        && cached.properties.equals(properties)) {
      return cached.broadcast;
    }
    Broadcast<Value> made = JavaSparkContext.fromSparkContext(sc).broadcast(new Value(conf));
    // The broadcast it replaces is left to Spark's context cleaner: plans made earlier may still
    // read it.
    last = new Entry(sc, properties, made);
    return made;
  }

  private static Map<String, String> properties(Configuration conf) {
    Map<String, String> properties = new HashMap<>();
    for (Map.Entry<String, String> e : conf) {
      properties.put(e.getKey(), e.getValue());
    }
    return properties;
  }

  /** The last broadcast made, with the context and the properties it was made from. */
  private static final class Entry {
    /** Weak: a stopped context must not stay reachable through this cache. */
    final WeakReference<SparkContext> context;
    final Map<String, String> properties;
    final Broadcast<Value> broadcast;

    Entry(SparkContext context, Map<String, String> properties, Broadcast<Value> broadcast) {
      this.context = new WeakReference<>(context);
      this.properties = properties;
      this.broadcast = broadcast;
    }
  }

  /** A Hadoop configuration that travels in Hadoop's own serialised form. */
  static final class Value implements Serializable {
    private static final long serialVersionUID = 1L;
    private transient Configuration conf;

    Value(Configuration conf) {
      this.conf = conf;
    }

    Configuration conf() {
      return conf;
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
      conf.write(out);
    }

    private void readObject(ObjectInputStream in) throws IOException {
      conf = new Configuration(false);
      conf.readFields(in);
    }
  }
}
