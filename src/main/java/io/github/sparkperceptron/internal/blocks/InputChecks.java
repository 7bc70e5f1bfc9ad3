package io.github.sparkperceptron.internal.blocks;

import java.util.Arrays;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StructType;

/**
 * Schema checks run before any Spark job, with messages that name the param, the column, what was
 * found and the fix (Spark's own say "requirement failed" or list the whole schema).
 */
public final class InputChecks {
  private InputChecks() {
  }

  public static void requireColumn(StructType schema, String column, String param) {
    if (!Arrays.asList(schema.fieldNames()).contains(column)) {
      throw new IllegalArgumentException("Column '" + column + "' (" + param + ") is not in the"
          + " dataset, whose columns are " + Arrays.toString(schema.fieldNames()) + "; set "
          + param + " to the right column name");
    }
  }

  public static void requireVectorColumn(StructType schema, String column, String param) {
    requireColumn(schema, column, param);
    DataType type = schema.apply(column).dataType();
    if (!type.equals(SQLDataTypes.VectorType())) {
      throw new IllegalArgumentException("Column '" + column + "' (" + param + ") has type "
          + type.simpleString() + " but must hold org.apache.spark.ml.linalg.Vector values;"
          + " assemble numeric columns with org.apache.spark.ml.feature.VectorAssembler"
          + " (or convert mllib vectors with MLUtils.convertVectorColumnsToML)");
    }
  }

  public static void requireNumericColumn(StructType schema, String column, String param) {
    requireColumn(schema, column, param);
    DataType type = schema.apply(column).dataType();
    if (!(type instanceof NumericType)) {
      throw new IllegalArgumentException("Column '" + column + "' (" + param + ") has type "
          + type.simpleString() + " but must be numeric; index string labels with"
          + " org.apache.spark.ml.feature.StringIndexer or cast the column to double");
    }
  }

  public static void requireBooleanColumn(StructType schema, String column, String param) {
    requireColumn(schema, column, param);
    DataType type = schema.apply(column).dataType();
    if (!type.typeName().equals("boolean")) {
      throw new IllegalArgumentException("Column '" + column + "' (" + param + ") has type "
          + type.simpleString() + " but must be boolean (true marks a validation row)");
    }
  }
}
