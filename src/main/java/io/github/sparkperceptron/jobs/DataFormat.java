package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.internal.blocks.TrainingInput;
import io.github.sparkperceptron.internal.io.BadInputException;
import io.github.sparkperceptron.internal.io.CsvSource;
import io.github.sparkperceptron.internal.io.LabeledData;
import io.github.sparkperceptron.internal.io.LibSvmSource;
import io.github.sparkperceptron.internal.io.ParquetSource;
import io.github.sparkperceptron.internal.io.ReadSpec;
import io.github.sparkperceptron.internal.io.TextInput;
import io.github.sparkperceptron.internal.plan.TrainingConfig;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/** The input formats the jobs read (picocli lists these names in --help). */
enum DataFormat {
  libsvm, csv, parquet;

  /** A message that quotes the content: a file's line ("f.csv:3: ..."), or Parquet's refusal. */
  private static final Pattern ABOUT_CONTENT = Pattern.compile(":\\d+: |as Parquet: ");

  /** What a bad file's message ends with when its name says another format. */
  private static final String HINT = "; did you mean --format ";

  /** A file name's extension that names a format: .libsvm or .svm, .csv, .parquet. */
  private static final Pattern EXTENSION =
      Pattern.compile("\\.(libsvm|svm|csv|parquet)(\\.gz|\\.bz2)?\\b");

  /**
   * Reads data as {@code spec} says, as a DataFrame (the two-pass readers); see {@link #hinted}
   * for the hint a bad file gets.
   *
   * @param role what the data are for, for messages, e.g. "training data (--train)"
   */
  LabeledData read(SparkSession spark, String path, ReadSpec spec, String role) {
    return hinted(path, () -> {
      switch (this) {
        case libsvm:
          return LibSvmSource.read(spark, path, spec, role);
        case csv:
          return CsvSource.read(spark, path, spec, role);
        case parquet:
          return ParquetSource.read(spark, path, spec, role);
        default:
          throw new IllegalStateException("unsupported format " + this);
      }
    });
  }

  /**
   * Plans the one-pass read of a text format ({@link TextInput}) by {@code workers} workers:
   * the paths and, for CSV, the header row are checked now, the lines when
   * {@link #blocks} reads them.
   */
  TextInput plan(SparkSession spark, String path, ReadSpec spec, String role, int workers) {
    if (this == parquet) {
      throw new IllegalStateException("Parquet is read as a DataFrame");
    }
    TextInput.Format text = this == csv ? TextInput.Format.CSV : TextInput.Format.LIBSVM;
    return hinted(path, () -> TextInput.plan(spark, path, text, spec, role, workers));
  }

  /**
   * Reads the planned text input into cached training blocks for {@code plan}, refusing bad input
   * with the messages of {@link #read}.
   */
  TrainingInput blocks(JavaSparkContext jsc, TextInput text, String path, TrainingPlan plan) {
    return hinted(path, () -> TrainingInput.fromText(jsc, text, plan));
  }

  /**
   * Reads the planned text input into cached blocks only to be scored, refusing bad input with the
   * messages of {@link #read}.
   */
  TrainingInput scoringBlocks(JavaSparkContext jsc, TextInput text, String path,
      TrainingConfig config) {
    return hinted(path, () -> TrainingInput.forScoring(jsc, text, config));
  }

  /**
   * {@code reading}'s result. When the content is bad and the file names say another format (a
   * {@code .csv} file read as LIBSVM, the default), the message ends with "did you mean --format
   * csv?".
   */
  private <T> T hinted(String path, Supplier<T> reading) {
    try {
      return reading.get();
    } catch (BadInputException e) {
      throw hinted(path, e);
    }
  }

  /**
   * {@code e} raised while reading {@code path} in this format, with "did you mean --format
   * csv?" added (once) when the content is bad and the file names say another format.
   */
  BadInputException hinted(String path, BadInputException e) {
    String message = String.valueOf(e.getMessage());
    DataFormat named = namedBy(path + " " + message);
    if (named == null || named == this || !ABOUT_CONTENT.matcher(message).find()
        || message.endsWith(HINT + named + "?")) {
      return e;
    }
    return new BadInputException(message + HINT + named + "?", e);
  }

  /** The format the first file extension in {@code text} names, or null. */
  static DataFormat namedBy(String text) {
    Matcher m = EXTENSION.matcher(text.toLowerCase(Locale.ROOT));
    if (!m.find()) {
      return null;
    }
    return m.group(1).equals("svm") ? libsvm : valueOf(m.group(1));
  }
}
