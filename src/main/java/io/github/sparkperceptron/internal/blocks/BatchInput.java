package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.io.TextInput;
import io.github.sparkperceptron.internal.plan.TrainingPlan;
import java.util.function.IntFunction;
import org.apache.spark.sql.Dataset;

/**
 * What one micro-batch of a stream learns from: the rows of a DataFrame, or text files that the
 * batch's workers read in one pass ({@link TextInput}: each line parsed once, by its worker,
 * straight into its training block; no DataFrame, no shuffle). For the same rows dealt to the
 * same workers the two give the same blocks, so the same model.
 */
public abstract class BatchInput {
  private BatchInput() {
  }

  /** A batch of (label, features[, weight]) rows. */
  public static BatchInput of(Dataset<?> rows) {
    return new Rows(rows);
  }

  /**
   * A batch of text files, read in one pass by the batch's W workers: {@code planFor} plans the
   * read for W (e.g. {@code w -> TextInput.plan(spark, files, format, spec, role, w)}), called
   * on the driver once W is known. Bad lines are refused, with their file and line, before the
   * batch changes the model.
   */
  public static BatchInput text(IntFunction<TextInput> planFor) {
    return new Text(planFor);
  }

  /** The conversion of the batch into blocks for the batch's {@code plan}. */
  public abstract Conversion conversion(TrainingPlan plan);

  private static final class Rows extends BatchInput {
    private final Dataset<?> rows;

    Rows(Dataset<?> rows) {
      this.rows = rows;
    }

    @Override
    public Conversion conversion(TrainingPlan plan) {
      return Conversion.ofRows(rows, plan);
    }
  }

  private static final class Text extends BatchInput {
    private final IntFunction<TextInput> planFor;

    Text(IntFunction<TextInput> planFor) {
      this.planFor = planFor;
    }

    @Override
    public Conversion conversion(TrainingPlan plan) {
      return Conversion.ofText(plan.sparkContext(),
          planFor.apply(plan.numWorkers()), plan.config(), plan);
    }
  }
}
