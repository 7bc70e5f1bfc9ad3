package io.github.sparkperceptron.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sparkperceptron.testing.SparkTestSupport;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class ReaderSupportTest {
  @Test
  void columnsAreTakenLiterallyWhateverTheirNames() {
    SparkSession spark = SparkTestSupport.spark();
    StructType schema = new StructType().add("a.b", DataTypes.IntegerType)
        .add("c`d", DataTypes.IntegerType).add("a", DataTypes.createStructType(
            List.of(DataTypes.createStructField("b", DataTypes.IntegerType, true))));
    Dataset<Row> frame = spark.createDataFrame(
        List.of(RowFactory.create(1, 2, RowFactory.create(3))), schema);
    Row r = frame.select(ReaderSupport.column("a.b"), ReaderSupport.column("c`d")).head();
    assertEquals(1, r.getInt(0), "the top-level column 'a.b', not field b of struct a");
    assertEquals(2, r.getInt(1));
  }

  @Test
  void freeNamesAvoidEveryTakenName() {
    assertEquals("features", ReaderSupport.freeName(new String[] {"x", "y"}, "features"));
    assertEquals("__features", ReaderSupport.freeName(
        new String[] {"features", "_features", "x"}, "features"));
  }

  @Test
  void firstLinesAreTrimmedAndNeverEmpty() {
    assertEquals("bad thing", ReaderSupport.firstLine(
        new IllegalStateException("  bad thing \n  at plan:\n  ...")));
    assertEquals("IllegalStateException", ReaderSupport.firstLine(new IllegalStateException()));
    assertEquals("The test data (--test) at 'x' hold no examples (only blank, comment or header"
        + " lines)", ReaderSupport.noExamples("test data (--test)", "x").getMessage());
  }
}
