package io.github.sparkperceptron.internal.io;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * Labelled rows from text records that each hold one example, such as the messages of a Kafka
 * topic: a LIBSVM line ({@code label index:value ...}, 1-based increasing indices), or a CSV line
 * without a header whose first field is the label and every other field a feature, in vector
 * order. The lines are parsed by the files' own parsers ({@link LibSvmParser},
 * {@link CsvParser}), so a record is held to the same rules as a line of a file, and a bad one
 * stops the read with a one-line message naming where it is (e.g. its topic, partition and
 * offset).
 *
 * <p>Labels are class indices 0 .. K−1. Unlike a file, a stream of records is never seen whole,
 * so −1/+1 labels are not mapped to 0/1 (a batch of only +1 could not be told apart).
 *
 * <p>Cost: two passes over the records (a check pass, then the conversion), as the file readers.
 */
public final class TextRecords {
  /** The record formats. */
  public enum Format {
    LIBSVM, CSV
  }

  private TextRecords() {
  }

  /** What the check pass found in one partition. */
  private static final class Report implements Serializable {
    private static final long serialVersionUID = 1L;
    String firstProblem;
    long rows;
    int maxIndex = -1;
    int minFields = Integer.MAX_VALUE;
    int maxFields = -1;
    String widestAt;
    String narrowestAt;
  }

  /**
   * Reads the records.
   *
   * @param records rows whose column 0 is the record's text (string; null counts as empty) and
   *     column 1 says where the record is, for messages (e.g. "topic rows, partition 0, offset 7")
   * @param numFeatures the feature count d the rows must fit, or −1 (CSV only) to take it from
   *     the records' field count
   * @param widthSource what fixed d, for messages (e.g. "--num-features")
   * @param role what the records are, for messages (e.g. "stream input (--kafka-topic)")
   * @throws BadInputException for the first bad record, records of differing widths, or a
   *     LIBSVM read without {@code numFeatures}
   */
  public static LabeledData read(Dataset<Row> records, Format format, int numFeatures,
      String widthSource, String role) {
    if (format == Format.LIBSVM && numFeatures < 0) {
      throw new BadInputException("LIBSVM records need the number of features (" + role + "):"
          + " a stream cannot read every record first to find the largest index");
    }
    String suffix = format == Format.LIBSVM ? LibSvmSource.suffix(role)
        : " (" + role + ", CSV records: label,feature1,feature2,... without a header)";
    JavaRDD<Row> rdd = records.javaRDD();
    List<Report> reports = rdd.mapPartitions(it -> Collections.singletonList(
        check(it, format, numFeatures)).iterator()).collect();
    Report wide = null;
    Report narrow = null;
    for (Report r : reports) {
      if (r.firstProblem != null) {
        throw new BadInputException(r.firstProblem + suffix);
      }
      if (r.maxFields >= 0 && (wide == null || r.maxFields > wide.maxFields)) {
        wide = r;
      }
      if (r.maxFields >= 0 && (narrow == null || r.minFields < narrow.minFields)) {
        narrow = r;
      }
    }
    int d = numFeatures;
    if (format == Format.CSV && wide != null) {
      if (wide.maxFields != narrow.minFields) {
        throw new BadInputException(narrow.narrowestAt + ": " + narrow.minFields + " fields, but "
            + wide.widestAt + " has " + wide.maxFields + "; every record needs the label and"
            + " the same features" + suffix);
      }
      if (d >= 0 && wide.maxFields - 1 != d) {
        throw new BadInputException(wide.widestAt + ": " + (wide.maxFields - 1) + " features,"
            + " but " + widthSource + " says " + d + suffix);
      }
      d = wide.maxFields - 1;
    }
    if (d < 0) {
      d = 0;
    }
    int width = d;
    JavaRDD<Row> parsed = rdd.mapPartitions(it -> toRows(it, format, width));
    return new LabeledData(records.sparkSession().createDataFrame(parsed,
        ReaderSupport.LABELLED_SCHEMA), d, "");
  }

  private static Report check(Iterator<Row> it, Format format, int numFeatures) {
    Report report = new Report();
    LibSvmParser libsvm = new LibSvmParser();
    CsvParser csv = new CsvParser();
    while (it.hasNext()) {
      Row record = it.next();
      String text = record.isNullAt(0) ? "" : record.getString(0);
      String where = record.getString(1);
      String problem;
      if (format == Format.LIBSVM) {
        problem = libsvm.parse(text);
        if (problem == null && !libsvm.isBlank() && libsvm.maxIndex() >= numFeatures) {
          problem = "feature index " + (libsvm.maxIndex() + 1) + " exceeds the " + numFeatures
              + " features";
        }
        if (problem == null && libsvm.isBlank()) {
          problem = "the record is empty";
        }
        if (problem == null) {
          problem = LabelCheck.classIndexProblem(libsvm.label(), -1) == null ? null
              : "label " + libsvm.label() + " "
                  + LabelCheck.classIndexProblem(libsvm.label(), -1);
        }
      } else {
        problem = csv.split(text);
        if (problem == null && csv.isBlank()) {
          problem = "the record is empty";
        }
        for (int i = 0; problem == null && i < csv.size(); i++) {
          problem = CsvParser.numberProblem(i == 0 ? "label" : "feature " + i, csv.field(i));
        }
        if (problem == null && csv.size() < 2) {
          problem = "a record needs a label and at least one feature";
        }
        if (problem == null) {
          double label = Double.parseDouble(csv.field(0));
          String why = LabelCheck.classIndexProblem(label, -1);
          problem = why == null ? null : "label " + csv.field(0) + " " + why;
        }
        if (problem == null) {
          if (csv.size() > report.maxFields) {
            report.maxFields = csv.size();
            report.widestAt = where;
          }
          if (csv.size() < report.minFields) {
            report.minFields = csv.size();
            report.narrowestAt = where;
          }
        }
      }
      if (problem != null) {
        report.firstProblem = where + ": " + problem;
        return report;
      }
      report.rows++;
    }
    return report;
  }

  private static Iterator<Row> toRows(Iterator<Row> records, Format format, int numFeatures) {
    LibSvmParser libsvm = new LibSvmParser();
    CsvParser csv = new CsvParser();
    return new Iterator<Row>() {
      @Override
      public boolean hasNext() {
        return records.hasNext();
      }

      @Override
      public Row next() {
        Row record = records.next();
        String text = record.isNullAt(0) ? "" : record.getString(0);
        if (format == Format.LIBSVM) {
          if (libsvm.parse(text) != null) {
            throw new IllegalStateException("a record changed between two reads: " + text);
          }
          int n = libsvm.size();
          return RowFactory.create(libsvm.label(), Vectors.sparse(numFeatures,
              Arrays.copyOf(libsvm.indices(), n), Arrays.copyOf(libsvm.values(), n)));
        }
        if (csv.split(text) != null) {
          throw new IllegalStateException("a record changed between two reads: " + text);
        }
        double[] values = new double[numFeatures];
        for (int i = 0; i < numFeatures; i++) {
          values[i] = Double.parseDouble(csv.field(i + 1));
        }
        return RowFactory.create(Double.parseDouble(csv.field(0)), Vectors.dense(values));
      }
    };
  }
}
