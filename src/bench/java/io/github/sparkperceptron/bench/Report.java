package io.github.sparkperceptron.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark's outputs: a long-format CSV (one measurement a row, each naming the machine,
 * Java and Spark versions, the data shape and seed) and a Markdown report of tables, both
 * rewritten after every section so that an interrupted run keeps what it measured.
 */
final class Report {
  private static final String CSV_HEADER = "machine,java,spark,section,dataset,rows,features,"
      + "stored_values,classes,seed,partitions,method,metric,value,unit";

  private final Path dir;
  private final String name;
  private final String machine;
  private final String java;
  private final String spark;
  private final List<String> csv = new ArrayList<>();
  private final StringBuilder markdown = new StringBuilder();

  Report(Path dir, String name, String sparkVersion, String command) {
    this.dir = dir;
    this.name = name;
    this.machine = machineLine();
    this.java = System.getProperty("java.vm.name") + " " + System.getProperty("java.version");
    this.spark = "Spark " + sparkVersion;
    markdown.append("# spark-perceptron benchmarks\n\n")
        .append("- Machine: ").append(machine).append('\n')
        .append("- Java: ").append(java).append("; Spark: ").append(sparkVersion)
        .append("; driver heap (-Xmx): ").append(Runtime.getRuntime().maxMemory() >> 20)
        .append(" MiB\n")
        .append("- Command: `").append(command).append("`\n\n");
  }

  /** "N cores, M GiB RAM, OS arch": what the numbers were measured on. */
  static String machineLine() {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    return String.format(Locale.ROOT, "%d cores, %.1f GiB RAM, %s %s",
        Runtime.getRuntime().availableProcessors(), os.getTotalMemorySize() / (double) (1L << 30),
        System.getProperty("os.name"), System.getProperty("os.arch"));
  }

  String machine() {
    return machine;
  }

  /** One measurement. */
  void add(String section, DataShape data, int partitions, String method, String metric,
      double value, String unit) {
    csv.add(String.join(",", quote(machine), quote(java), quote(spark), section,
        quote(data.name), Long.toString(data.rows), Integer.toString(data.numFeatures),
        Long.toString(data.storedValues), Integer.toString(data.numClasses), data.seedText(),
        Integer.toString(partitions), quote(method), metric,
        Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.6g", value), unit));
  }

  /** Appends Markdown (a heading, a table, a note). */
  Report markdown(String text) {
    markdown.append(text);
    return this;
  }

  void flush() {
    try {
      Files.createDirectories(dir);
      Files.write(dir.resolve(name + ".csv"), (CSV_HEADER + "\n" + String.join("\n", csv) + "\n")
          .getBytes(StandardCharsets.UTF_8));
      Files.write(dir.resolve(name + ".md"), markdown.toString().getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String quote(String s) {
    return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
  }

  /** A Markdown table builder. */
  static final class Table {
    private final StringBuilder sb = new StringBuilder();

    Table(String... headers) {
      sb.append("| ").append(String.join(" | ", headers)).append(" |\n|");
      for (int i = 0; i < headers.length; i++) {
        sb.append(i == 0 ? "---|" : "---:|");
      }
      sb.append('\n');
    }

    Table row(Object... cells) {
      sb.append('|');
      for (Object c : cells) {
        sb.append(' ').append(c).append(" |");
      }
      sb.append('\n');
      return this;
    }

    @Override
    public String toString() {
      return sb.append('\n').toString();
    }
  }

  static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
