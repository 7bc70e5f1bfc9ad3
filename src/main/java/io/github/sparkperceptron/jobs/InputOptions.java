package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.internal.io.BadInputException;
import io.github.sparkperceptron.internal.io.ReadSpec;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/** The input-format flags every job shares (a picocli mixin). */
final class InputOptions {
  @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "libsvm",
      description = "input format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}); for"
          + " training and evaluation, input whose labels are all -1/+1 is read as 0/1")
  DataFormat format;

  @Option(names = "--label-col", paramLabel = "NAME", defaultValue = "label",
      description = "CSV and Parquet: the label column (default: ${DEFAULT-VALUE})")
  String labelCol;

  @Option(names = "--feature-cols", paramLabel = "A,B,C", split = ",", hideParamSyntax = true,
      description = "CSV and Parquet: the numeric feature columns, in vector order (default: for"
          + " CSV every column but the label; for Parquet the vector column --features-col)")
  List<String> featureCols;

  @Option(names = "--features-col", paramLabel = "NAME", defaultValue = "features",
      description = "Parquet: the vector column of features, used without --feature-cols"
          + " (default: ${DEFAULT-VALUE})")
  String featuresCol;

  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

  /**
   * What the readers need to know, after checking that the column flags fit the format; flags
   * set in a --job-conf file are defaults and are not checked.
   */
  ReadSpec spec() {
    ParseResult given = command.commandLine().getParseResult();
    boolean columns = given.hasMatchedOption("--label-col")
        || given.hasMatchedOption("--feature-cols") || given.hasMatchedOption("--features-col");
    if (format == DataFormat.libsvm && columns) {
      throw new BadInputException("--label-col, --feature-cols and --features-col name CSV or"
          + " Parquet columns; LIBSVM input (--format libsvm) has none");
    }
    if (format == DataFormat.csv && given.hasMatchedOption("--features-col")) {
      throw new BadInputException("--features-col names a Parquet vector column; name CSV"
          + " feature columns with --feature-cols");
    }
    ReadSpec spec = ReadSpec.labelled().withLabelCol(labelCol).withFeaturesCol(featuresCol);
    return featureCols == null ? spec : spec.withFeatureCols(featureCols);
  }

  /**
   * {@link #spec()} with a sample weight column (--weight-col; "" for none), after checking that
   * the format has columns and that the name is not one the job gives its own columns.
   */
  ReadSpec spec(String weightCol) {
    ReadSpec spec = spec();
    if (!weightCol.isEmpty()) {
      if (format == DataFormat.libsvm) {
        throw new BadInputException("--weight-col names a CSV or Parquet column; LIBSVM input"
            + " (--format libsvm) has none");
      }
      if (weightCol.equals("label") || weightCol.equals("features")) {
        throw new BadInputException("--weight-col may not be '" + weightCol + "': the job"
            + " gives that name to the " + weightCol + " it reads");
      }
    }
    return spec.withWeightCol(weightCol);
  }
}
