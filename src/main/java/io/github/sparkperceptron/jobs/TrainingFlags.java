package io.github.sparkperceptron.jobs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.sparkperceptron.internal.calibration.CalibrationMethod;
import io.github.sparkperceptron.internal.io.BadInputException;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.ClassWeight;
import io.github.sparkperceptron.internal.kernel.ParamValue;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.internal.plan.StreamRefusals;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import picocli.CommandLine.Command;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The training flags of the jobs, written once: a table whose rows each name a flag, the
 * {@link PerceptronClassifier} param it sets and its help. As a picocli mixin it adds the rows to
 * a job ({@code submit/train} all of them, {@code submit/stream-train} those that apply to a
 * stream) as options typed by their params, whose defaults, shown by {@code --help}, are the
 * estimator's own ({@link JobDefaults}); {@link #applyTo} sets on an estimator exactly the flags
 * the user gave, on the command line or in {@code --job-conf}, so a flag left out leaves the
 * library's default in force. Errors of a param's validator name the flag, not the param.
 *
 * <p>A stream refuses the rows that need the whole dataset up front or have no meaning per
 * micro-batch, each with the reason ({@link #whyNot}); {@code TrainingFlagsTest} checks that
 * the table and the estimator's training params ({@code EngineBridge.trainingParams}) agree.
 */
@Command(modelTransformer = TrainingFlags.AddOptions.class)
final class TrainingFlags {

  /** What a job trains: one fit over a dataset, or a stream of micro-batches. */
  enum Scope {
    FIT, STREAM
  }

  /**
   * One flag of the table.
   *
   * @param name the long flag name, with its dashes (SPEC.md fixes it)
   * @param param the name of the estimator param it sets
   * @param label the value's name in --help (unused for a switch)
   * @param help its help for a fit; " (default: ...)" is appended when the param has a default
   * @param streamHelp its help for a stream, where it applies to streams (whether it does is
   *     {@link StreamRefusals}'s to say)
   * @param streamOwnsName whether stream-train has a flag of this name that means something else
   */
  record Flag(String name, String param, String label, String help, String streamHelp,
      boolean streamOwnsName) {

    /** The same flag with its own help for streams. */
    Flag inStreams(String text) {
      return new Flag(name, param, label, help, text, false);
    }

    /** The same flag, whose name stream-train gives to a flag of its own. */
    Flag streamHasItsOwn() {
      return new Flag(name, param, label, help, null, true);
    }

    boolean appliesTo(Scope scope) {
      return scope == Scope.FIT || !streamOwnsName && StreamRefusals.flagRefused(param) == null;
    }

    String helpFor(Scope scope) {
      return scope == Scope.FIT ? help : streamHelp;
    }
  }

  private static Flag flag(String name, String param, String label, String help) {
    return new Flag(name, param, label, help, help, false);
  }

  /** "a, b or c": the values a string param takes, from its enum. */
  private static <E extends Enum<E> & ParamValue> String values(Class<E> type) {
    List<String> names = ParamValue.names(type);
    return String.join(", ", names.subList(0, names.size() - 1)) + " or "
        + names.get(names.size() - 1);
  }

  /**
   * The table, in the order of --help. Every param of
   * {@code EngineBridge.trainingParams} is here but the columns the readers set
   * (labelCol, featuresCol: --label-col, --features-col) and validationIndicatorCol (set by
   * train's --validation).
   */
  static final List<Flag> TABLE = List.of(
      flag("--workers", "numWorkers", "W", "perceptrons trained in parallel and mixed after"
          + " every epoch (numWorkers); the input's partitions are coalesced or split into W."
          + " 0 = one per task slot of the cluster (Spark's default parallelism). The model"
          + " depends on W: pin it to get the same model on clusters of different sizes")
          .inStreams("perceptrons trained in parallel on each batch and mixed (numWorkers); the"
              + " batch's partitions are coalesced or split into W. 0 = one per task slot of the"
              + " cluster (Spark's default parallelism). The model depends on W: pin it to get"
              + " the same model on clusters of different sizes"),
      flag("--max-iter", "maxIter", "N", "maximum epochs"),
      flag("--tol", "tol", "T", "stop when an epoch changes the weights by less than T relative"
          + " to their norm; 0 disables")
          .inStreams("with --epochs-per-batch > 1, stop a batch's epochs when the weights change"
              + " by less than T relative to their norm"),
      flag("--step-size", "stepSize", "ETA", "learning rate of the perceptron rule"),
      flag("--fit-intercept", "fitIntercept", null,
          "learn a bias; --no-fit-intercept turns it off"),
      flag("--update-rule", "updateRule", "RULE", values(UpdateRule.class)
          + " (passive-aggressive)"),
      flag("--aggressiveness", "aggressiveness", "C", "C of pa1 and pa2"),
      flag("--averaging", "averaging", "MODE", values(Averaging.class))
          .inStreams("none or average (vote is not available for streams)"),
      flag("--mixing", "mixing", "MODE", "uniform, mistakes, momentum or oneshot")
          .inStreams("uniform, mistakes or momentum (block momentum, its velocity carried over"
              + " from batch to batch as if the batches were one epoch's rounds)"),
      flag("--mixing-rounds", "mixingRounds", "R", "mixing rounds per epoch; 0 = min(W, 64,"
          + " N / (2 W)) for W workers and N training rows with --mixing momentum, else 1"),
      flag("--shuffle", "shuffle", null, "reshuffle every partition each epoch; --no-shuffle"
          + " keeps the input order")
          .inStreams("visit each batch's rows in a seeded random order; --no-shuffle keeps the"
              + " arrival order"),
      flag("--shuffle-scope", "shuffleScope", "SCOPE", "with --shuffle: rows (a fresh"
          + " permutation of every partition each epoch), chunks (rows stored once in random"
          + " order, visited chunk by chunk in random order: a faster epoch, see BENCHMARKS.md"
          + " for its accuracy) or auto (rows for a worker whose rows fit one stored chunk of"
          + " 8 MiB, chunks beyond)"),
      flag("--seed", "seed", "S", "random seed"),
      flag("--threshold", "threshold", "M", "binary models predict 1 when the margin exceeds M"),
      flag("--weight-col", "weightCol", "NAME", "CSV and Parquet: a column of non-negative"
          + " sample weights; an example's weight scales its update (default: none, every row"
          + " weighs 1)"),
      flag("--validation-patience", "validationPatience", "N", "with --validation, epochs"
          + " without improvement before stopping"),
      flag("--class-weight", "classWeight", "MODE", values(ClassWeight.class)
          + " (balanced: weight each class inversely to its size)"),
      flag("--calibration", "calibration", "METHOD", values(CalibrationMethod.class)
          + ": how the model turns its scores into probabilities (its probability column, the"
          + " log-loss, Brier score and reliability diagram of the reports), fitted after"
          + " training on rows it did not train on: the --validation rows when given, else a"
          + " seeded 10% of the training rows held out (cross-fitted on 3 folds where those"
          + " hold under 50 rows of a class)"),
      flag("--calibration-folds", "calibrationFolds", "K", "K >= 2: fit the calibrator on"
          + " out-of-fold scores of K fold models instead of held-out rows, the model trained on"
          + " every row (K more fits); 0 = the default's held-out rows"),
      flag("--checkpoint-dir", "checkpointDir", "DIR", "write training checkpoints here (any"
          + " Hadoop path); with --resume, a restarted training continues from the last one")
          .streamHasItsOwn(),
      flag("--checkpoint-interval", "checkpointInterval", "K", "with --checkpoint-dir,"
          + " checkpoint every K epochs"),
      flag("--aggregation-depth", "aggregationDepth", "K", "depth of the tree aggregation"),
      flag("--storage-level", "storageLevel", "LEVEL", "where Spark keeps the training data's"
          + " chunks: MEMORY_AND_DISK (what fits in memory, the rest spilled to local disk),"
          + " DISK_ONLY, MEMORY_AND_DISK_SER, ... (never changes the model)"));

  private static final String HEADING = "%nTraining (params of PerceptronClassifier; a flag left"
      + " out keeps the param's default):%n";

  private final Scope scope;
  /** The estimator whose param objects and defaults the options use. */
  private final PerceptronClassifier defaults = new PerceptronClassifier();
  /** The options this mixin added to its job, by flag name. */
  private final Map<String, OptionSpec> options = new LinkedHashMap<>();

  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

  TrainingFlags(Scope scope) {
    this.scope = scope;
  }

  /** For picocli, which instantiates a mixin it finds null; the jobs pass their scope. */
  TrainingFlags() {
    this(Scope.FIT);
  }

  /** The table's rows this job takes, in the table's order. */
  List<Flag> flags() {
    List<Flag> out = new ArrayList<>();
    for (Flag f : TABLE) {
      if (f.appliesTo(scope)) {
        out.add(f);
      }
    }
    return out;
  }

  /** The training flags mixed into {@code spec}, or null when it has none. */
  static TrainingFlags of(CommandSpec spec) {
    for (CommandSpec mixin : spec.mixins().values()) {
      if (mixin.userObject() instanceof TrainingFlags flags) {
        return flags;
      }
    }
    return null;
  }

  /** The param {@code option} sets, or null when it is none of this mixin's options. */
  Param<Object> paramOf(OptionSpec option) {
    for (Flag f : flags()) {
      if (options.get(f.name()) == option) {
        return defaults.getParam(f.param());
      }
    }
    return null;
  }

  /** The options this mixin added, in the table's order. */
  List<OptionSpec> optionsInOrder() {
    return new ArrayList<>(options.values());
  }

  /** The estimator whose defaults the options show. */
  PerceptronClassifier defaults() {
    return defaults;
  }

  /** A stream's own settings that refusals name, by stream-train's flags. */
  private static final Map<String, String> STREAM_SETTINGS =
      Map.of("epochsPerBatch", "--epochs-per-batch");

  /**
   * {@code reason}, which names params as the library says it, in a job user's terms: each
   * param by its flag ("classWeight=balanced" becomes "--class-weight balanced").
   */
  static String inFlagTerms(String reason) {
    Map<String, String> flags = new LinkedHashMap<>(STREAM_SETTINGS);
    for (Flag f : TABLE) {
      flags.put(f.param(), f.name());
    }
    String out = reason;
    for (Map.Entry<String, String> e : flags.entrySet()) {
      out = out.replaceAll("\\b" + e.getKey() + "=", e.getValue() + " ")
          .replaceAll("\\b" + e.getKey() + "\\b", e.getValue());
    }
    return out;
  }

  /**
   * Why this job refuses a training flag of {@code submit/train}, or null when it takes it (or
   * it is no training flag).
   */
  String whyNot(String flagName) {
    for (Flag f : TABLE) {
      if (f.name().equals(flagName) && !f.appliesTo(scope) && !f.streamOwnsName()) {
        return inFlagTerms(StreamRefusals.flagRefused(f.param()));
      }
    }
    return null;
  }

  /**
   * Sets on {@code estimator} the params of the flags the user gave (command line or
   * --job-conf) and nothing else; the params' validators check the values.
   *
   * @throws BadInputException when a validator refuses a value, naming the flag
   */
  PerceptronClassifier applyTo(PerceptronClassifier estimator) {
    for (Flag f : flags()) {
      if (JobDefaults.given(command, f.name())) {
        Param<Object> param = estimator.getParam(f.param());
        try {
          estimator.set(param, options.get(f.name()).getValue());
        } catch (IllegalArgumentException e) {
          String message = e.getMessage() == null ? "" : e.getMessage();
          // The validators' messages begin with the param's name; a job user knows the flag.
          throw new BadInputException(message.startsWith(f.param() + " ")
              ? f.name() + message.substring(f.param().length()) : f.name() + ": " + message, e);
        }
      }
    }
    return estimator;
  }

  /**
   * Writes the params of this job's rows that {@code estimator} defines into {@code node}, with
   * numbers as numbers and switches as booleans.
   */
  void writeParams(PerceptronClassifier estimator, ObjectNode node) {
    for (Flag f : flags()) {
      Param<Object> p = estimator.getParam(f.param());
      if (estimator.isDefined(p)) {
        Json.putValue(node, p.name(), estimator.getOrDefault(p));
      }
    }
  }

  /** The option type of a param: Spark's typed params to Java's primitives, else text. */
  private static Class<?> typeOf(Param<?> param) {
    if (param instanceof IntParam) {
      return int.class;
    }
    if (param instanceof LongParam) {
      return long.class;
    }
    if (param instanceof DoubleParam) {
      return double.class;
    }
    if (param instanceof BooleanParam) {
      return boolean.class;
    }
    return String.class;
  }

  /**
   * Adds the mixin's rows to the job as options, and lists them in --help under a heading of
   * their own, after the job's other options. (picocli merges a mixin's command attributes into
   * its job, so this transformer sees the job's spec.)
   */
  static final class AddOptions implements IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec spec) {
      TrainingFlags mixin = of(spec);
      if (mixin == null) {
        return spec;
      }
      for (Flag f : mixin.flags()) {
        Param<?> param = mixin.defaults.getParam(f.param());
        Class<?> type = typeOf(param);
        // picocli reads a description as a format string: a literal % (the "10% of the rows")
        // is doubled, or --help prints a warning per % and the text unformatted.
        String help = f.helpFor(mixin.scope).replace("%", "%%")
            + (mixin.defaults.hasDefault(param) ? " (default: ${DEFAULT-VALUE})" : "");
        OptionSpec.Builder option = OptionSpec.builder(f.name()).type(type).description(help);
        if (type == boolean.class) {
          // A switch: --x sets true, --no-x false, whatever the default (picocli would otherwise
          // toggle a switch whose default is true).
          option.negatable(true).fallbackValue("true");
        } else {
          option.paramLabel(f.label());
        }
        OptionSpec built = option.build();
        spec.addOption(built);
        mixin.options.put(f.name(), built);
      }
      Map<String, CommandLine.IHelpSectionRenderer> sections =
          new LinkedHashMap<>(spec.usageMessage().sectionMap());
      sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST, help -> {
        List<OptionSpec> others = new ArrayList<>(help.commandSpec().options());
        List<OptionSpec> training = mixin.optionsInOrder();
        others.removeAll(training);
        return help.optionListExcludingGroups(others, help.createDefaultLayout(), null,
            help.parameterLabelRenderer())
            + help.createHeading(HEADING)
            + help.optionListExcludingGroups(training, help.createDefaultLayout(), null,
                help.parameterLabelRenderer());
      });
      spec.usageMessage().sectionMap(sections);
      return spec;
    }
  }
}
