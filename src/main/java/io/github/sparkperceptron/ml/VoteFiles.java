package io.github.sparkperceptron.ml;

import io.github.sparkperceptron.internal.kernel.VotedPerceptron;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Saves and loads a {@link VotedPerceptron} beside a model's {@code data/}: {@code vote/starts}
 * (one row per start vector) and {@code vote/segments} (one row per worker segment, with its
 * updates as arrays), both Parquet.
 */
final class VoteFiles {
  private VoteFiles() {
  }

  private static final StructType STARTS = new StructType(new StructField[] {
      DataTypes.createStructField("index", DataTypes.IntegerType, false),
      DataTypes.createStructField("weights", DataTypes.createArrayType(DataTypes.DoubleType), false)});

  private static final StructType SEGMENTS = new StructType(new StructField[] {
      DataTypes.createStructField("segment", DataTypes.IntegerType, false),
      DataTypes.createStructField("startVector", DataTypes.IntegerType, false),
      DataTypes.createStructField("startWeight", DataTypes.DoubleType, false),
      DataTypes.createStructField("rowStart", DataTypes.createArrayType(DataTypes.IntegerType), false),
      DataTypes.createStructField("indices", DataTypes.createArrayType(DataTypes.IntegerType), false),
      DataTypes.createStructField("values", DataTypes.createArrayType(DataTypes.DoubleType), false),
      DataTypes.createStructField("raised", DataTypes.createArrayType(DataTypes.IntegerType), false),
      DataTypes.createStructField("lowered", DataTypes.createArrayType(DataTypes.IntegerType), false),
      DataTypes.createStructField("delta", DataTypes.createArrayType(DataTypes.DoubleType), false),
      DataTypes.createStructField("weight", DataTypes.createArrayType(DataTypes.DoubleType), false)});

  static boolean exists(SparkSession spark, String modelPath) {
    return ModelFiles.exists(spark, new Path(modelPath, "vote"));
  }

  static void save(SparkSession spark, VotedPerceptron vote, String modelPath) {
    List<Row> starts = new ArrayList<>();
    double[][] vectors = vote.startVectors();
    for (int i = 0; i < vectors.length; i++) {
      starts.add(RowFactory.create(i, boxed(vectors[i])));
    }
    spark.createDataFrame(starts, STARTS).write()
        .parquet(new Path(modelPath, "vote/starts").toString());

    List<Row> segments = new ArrayList<>();
    int[] first = vote.segmentFirstUpdates();
    int[] rowStart = vote.updateRowStarts();
    for (int s = 0; s < vote.numSegments(); s++) {
      int from = first[s];
      int to = first[s + 1];
      int nzFrom = rowStart[from];
      int nzTo = rowStart[to];
      int[] localStarts = new int[to - from + 1];
      for (int u = from; u <= to; u++) {
        localStarts[u - from] = rowStart[u] - nzFrom;
      }
      segments.add(RowFactory.create(s, vote.segmentStartVectors()[s],
          vote.segmentStartWeights()[s], boxed(localStarts),
          boxed(Arrays.copyOfRange(vote.updateIndices(), nzFrom, nzTo)),
          boxed(Arrays.copyOfRange(vote.updateValues(), nzFrom, nzTo)),
          boxed(Arrays.copyOfRange(vote.updateRaised(), from, to)),
          boxed(Arrays.copyOfRange(vote.updateLowered(), from, to)),
          boxed(Arrays.copyOfRange(vote.updateDeltas(), from, to)),
          boxed(Arrays.copyOfRange(vote.updateWeights(), from, to))));
    }
    spark.createDataFrame(segments, SEGMENTS).write()
        .parquet(new Path(modelPath, "vote/segments").toString());
  }

  static VotedPerceptron load(SparkSession spark, String modelPath, int numClasses,
      int numFeatures, boolean fitIntercept) {
    List<Row> startRows = spark.read().parquet(new Path(modelPath, "vote/starts").toString())
        .orderBy("index").collectAsList();
    double[][] starts = new double[startRows.size()][];
    for (int i = 0; i < starts.length; i++) {
      if (startRows.get(i).getInt(0) != i) {
        throw damaged(modelPath, "starts", "start vector indices are not 0, 1, 2, ...");
      }
      starts[i] = doubles(startRows.get(i).getList(1));
    }
    List<Row> segs = spark.read().parquet(new Path(modelPath, "vote/segments").toString())
        .orderBy("segment").collectAsList();
    int updates = 0;
    int stored = 0;
    for (Row r : segs) {
      updates += r.getList(6).size();
      stored += r.getList(4).size();
    }
    int[] segStart = new int[segs.size()];
    double[] segWeight = new double[segs.size()];
    int[] segFirst = new int[segs.size() + 1];
    int[] rowStart = new int[updates + 1];
    int[] indices = new int[stored];
    double[] values = new double[stored];
    int[] raised = new int[updates];
    int[] lowered = new int[updates];
    double[] delta = new double[updates];
    double[] weight = new double[updates];
    int u = 0;
    int nz = 0;
    for (int s = 0; s < segs.size(); s++) {
      Row r = segs.get(s);
      segStart[s] = r.getInt(1);
      segWeight[s] = r.getDouble(2);
      segFirst[s] = u;
      int[] local = ints(r.getList(3));
      int[] idx = ints(r.getList(4));
      double[] val = doubles(r.getList(5));
      int[] up = ints(r.getList(6));
      int[] down = ints(r.getList(7));
      double[] step = doubles(r.getList(8));
      double[] w = doubles(r.getList(9));
      if (r.getInt(0) != s || local.length != up.length + 1 || local[0] != 0
          || local[up.length] != idx.length || val.length != idx.length
          || down.length != up.length || step.length != up.length || w.length != up.length) {
        throw damaged(modelPath, "segments", "segment row " + s + " has arrays of inconsistent"
            + " lengths");
      }
      for (int j = 0; j < up.length; j++) {
        if (local[j + 1] < local[j]) {
          throw damaged(modelPath, "segments", "segment row " + s + " has decreasing row starts");
        }
      }
      System.arraycopy(idx, 0, indices, nz, idx.length);
      System.arraycopy(val, 0, values, nz, val.length);
      for (int j = 0; j < up.length; j++) {
        raised[u + j] = up[j];
        lowered[u + j] = down[j];
        delta[u + j] = step[j];
        weight[u + j] = w[j];
        rowStart[u + j + 1] = nz + local[j + 1];
      }
      u += up.length;
      nz += idx.length;
    }
    segFirst[segs.size()] = u;
    try {
      return new VotedPerceptron(numClasses, numFeatures, fitIntercept, starts, segStart,
          segWeight, segFirst, rowStart, indices, values, raised, lowered, delta, weight);
    } catch (IllegalArgumentException e) {
      throw damaged(modelPath, "", e.getMessage());
    }
  }

  /**
   * The error for vote files that do not describe a vote: written by another program, or
   * damaged. Checked before use, so that prediction never indexes outside an array.
   */
  private static IllegalArgumentException damaged(String modelPath, String part, String why) {
    return new IllegalArgumentException("'" + new Path(modelPath, "vote/" + part)
        + "' does not hold a readable vote (" + why + "); the model directory is damaged or was"
        + " written by another program");
  }

  /** {@code values} as a Scala sequence, for a Parquet array column (also CalibratorFiles'). */
  static Seq<Object> boxed(double[] values) {
    List<Object> list = new ArrayList<>(values.length);
    for (double v : values) {
      list.add(v);
    }
    return CollectionConverters.asScala(list).toSeq();
  }

  private static Seq<Object> boxed(int[] values) {
    List<Object> list = new ArrayList<>(values.length);
    for (int v : values) {
      list.add(v);
    }
    return CollectionConverters.asScala(list).toSeq();
  }

  /** A Parquet array column's doubles (also CalibratorFiles'). */
  static double[] doubles(List<Object> list) {
    double[] out = new double[list.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = ((Number) list.get(i)).doubleValue();
    }
    return out;
  }

  private static int[] ints(List<Object> list) {
    int[] out = new int[list.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = ((Number) list.get(i)).intValue();
    }
    return out;
  }
}
