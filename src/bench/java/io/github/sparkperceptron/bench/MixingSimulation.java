package io.github.sparkperceptron.bench;

import io.github.sparkperceptron.data.SyntheticData;
import io.github.sparkperceptron.data.SyntheticRows;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.EpochOrder;
import io.github.sparkperceptron.internal.kernel.EpochPlan;
import io.github.sparkperceptron.internal.kernel.EpochStats;
import io.github.sparkperceptron.internal.kernel.FeatureBlock;
import io.github.sparkperceptron.internal.kernel.LearnerConfig;
import io.github.sparkperceptron.internal.kernel.LinearState;
import io.github.sparkperceptron.internal.kernel.OnlineLearner;
import io.github.sparkperceptron.internal.kernel.Predictor;
import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.internal.kernel.TouchedSet;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;
import io.github.sparkperceptron.internal.kernel.TrainingBlockBuilder;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.internal.kernel.VisitOrder;
import io.github.sparkperceptron.internal.mixing.BlockMomentum;
import io.github.sparkperceptron.internal.mixing.MixingMode;
import io.github.sparkperceptron.internal.mixing.ParameterMix;
import io.github.sparkperceptron.internal.mixing.StateDelta;
import io.github.sparkperceptron.internal.mixing.WorkerResult;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.sql.Row;

/**
 * The trainer's iterative mixing without Spark, for sweeps too long to run on Spark: W workers
 * (row i of the training file goes to worker i mod W, as a round-robin repartition deals rows;
 * or contiguous slices), R rounds per epoch, the averaged perceptron, held-out accuracy after
 * every epoch. Unlike {@link MixingCandidates}, which compares mixing rules written out here,
 * this runs the library's own code in the order {@code internal/rounds/JobPerRound} runs it: the kernel
 * ({@link OnlineLearner} over each worker's slice of its {@link VisitOrder} epoch order, every
 * worker's clock running at T/T_i), {@link StateDelta#between}, the fixed-tree
 * {@link ParameterMix}, and {@link BlockMomentum}'s look-ahead, restart and after-round step with
 * the trainer's β = 1 − 1/W and ρ. So with contiguous slices it gives the model that
 * {@code PerceptronClassifier.fit} gives on the same rows in W partitions in order, bit for bit,
 * which {@code --check-spark} verifies; only the Spark jobs are missing.
 *
 * <pre>
 * MixingSimulation DATA_DIR SETS CONFIGS WORKERS [SEEDS [EPOCHS [SPLIT]]]
 *   SETS     breast_cancer, iris, pendigits, skin_nonskin, spark_sample_libsvm (a suffix @N keeps
 *            the first N training rows), gen-sparse-100k, gen-dense-100k, gen-sparse-1M,
 *            gen-dense-200k, gen-multi-sparse-50k, gen-multi-dense-50k, gen-multi20-sparse-40k
 *            (BenchmarkRunner's generators; another size, e.g. gen-sparse-20k, takes that many
 *            rows of the same generator, gen-sparse-wide-N and gen-dense-wide-N those of
 *            gen-sparse-1M and gen-dense-200k), text-like-105 (the many-class section's
 *            105-class text-like set: 6,400 training, 1,600 held-out rows), comma-separated
 *   CONFIGS  mistakes | uniform | momentum:R, R a number, W (= workers), auto (the trainer's
 *            automatic rounds) or m&lt;M&gt; (min(W, 64, ⌊rows per worker / M⌋), at least 1)
 *   WORKERS  1,2,4,...      SEEDS 42,1,2      EPOCHS 10      SPLIT roundrobin | contiguous
 * </pre>
 * Prints one line per run, {@code RUN set rows W config R seed acc_1 ... acc_E restarts | k_1 ...
 * k_E | checks C settled S} (k_e: the updates of epoch e over all workers, 0 once the run has
 * converged; C the look-aheads that checked the bound's norm, S those the norm bounds settled
 * without a pass over the support), then a
 * Markdown table per set and config of the last epoch's accuracy (mean over seeds) and its
 * difference in points to the first worker count.
 *
 * <p>Momentum variants that were measured and rejected (BENCHMARKS.md, issues 18 and 32), kept
 * switchable so that the evidence can be reproduced: {@code -Dsim.beta=k} takes β = 1 − k/W;
 * {@code -Dsim.gr=true} restarts the velocity whenever a round's mixed change points against it
 * (O'Donoghue &amp; Candès' gradient restart); {@code -Dsim.restart=epochrise} restarts it after
 * an epoch with more updates than the one before, {@code =roundrise} after a round with more
 * update mass than the one before (their function scheme, on the mistakes), {@code =everyepoch}
 * after every epoch; {@code -Dsim.betarule=active} takes the next look-ahead's β as 1 − 1/a, a the
 * workers that updated in the round, {@code =effective} with a = (Σk_i)²/Σk_i²;
 * {@code -Dsim.tail=f} mixes without momentum from the first epoch that updates on fewer than a
 * share f of the rows (the restart rules and the switch count in the output's restarts; the β
 * rules do not); {@code -Dsim.scope=chunks} visits each worker's rows in the chunked order
 * (shuffleScope=chunks, the rows stored in its seeded layout) instead of a full shuffle.
 */
public final class MixingSimulation {
  /** Experiment: restart the velocity when a round's mixed change opposes it (-Dsim.gr=true). */
  static final boolean GRADIENT_RESTART = Boolean.getBoolean("sim.gr");
  /** Experiment: β = 1 − k/W instead of 1 − 1/W (-Dsim.beta=k). */
  static final double BETA_SCALE = Double.parseDouble(System.getProperty("sim.beta", "1"));
  /** Experiment: restart rule at epoch ends (-Dsim.restart=epochrise|everyepoch|roundrise). */
  static final String RESTART = System.getProperty("sim.restart", "");
  /** Experiment: β from the workers that updated (-Dsim.betarule=active|effective). */
  static final String BETA_RULE = System.getProperty("sim.betarule", "");
  /**
   * Experiment: once an epoch updates on fewer than this share of the training rows, the rest of
   * the fit mixes without momentum (-Dsim.tail=f; 0: never).
   */
  static final double TAIL_SHARE = Double.parseDouble(System.getProperty("sim.tail", "0"));
  /**
   * Experiment: the workers' visiting order, shuffleScope (-Dsim.scope=chunks: each worker's
   * rows stored in its seeded layout and visited in chunks, as the trainer does; default rows).
   */
  static final ShuffleScope SCOPE = ShuffleScope.valueOf(
      System.getProperty("sim.scope", "rows").toUpperCase(java.util.Locale.ROOT));
  /**
   * Experiment: rows per chunk of the chunked order (-Dsim.chunkRows=C; 0: the trainer's,
   * VisitOrder.chunkRows, 64 KiB of rows).
   */
  static final int CHUNK_ROWS = Integer.getInteger("sim.chunkRows", 0);
  /**
   * {@code visits} for a worker of {@code storedBytes}: scope auto as the trainer resolves it, one
   * stored chunk up to 8 MiB (one layout per worker here, one per stored chunk there: the same
   * order statistics).
   */
  static VisitOrder forWorker(VisitOrder visits, long storedBytes) {
    return visits.forStoredChunks(storedBytes > EpochPlan.STORED_CHUNK_BYTES ? 2 : 1);
  }

  private final String name;
  private final TrainingBlock train;
  private final TrainingBlock test;
  private final int d;
  private final int k;

  MixingSimulation(String name, TrainingBlock train, TrainingBlock test, int d, int k) {
    this.name = name;
    this.train = train;
    this.test = test;
    this.d = d;
    this.k = k;
  }

  /** A run's outcome: accuracy after each epoch, rounds per epoch and momentum restarts. */
  static final class Outcome {
    final double[] accuracy;
    final int rounds;
    final long restarts;
    final double[] model;
    final long[] updates;
    /** Look-aheads that checked the bound's norm (ρ &gt; 0), and those settled without a pass. */
    long normChecks;
    long settledChecks;

    Outcome(double[] accuracy, int rounds, long restarts, double[] model, long[] updates) {
      this.updates = updates;
      this.accuracy = accuracy;
      this.rounds = rounds;
      this.restarts = restarts;
      this.model = model;
    }
  }

  // ------------------------------------------------------------------------------------ data

  /** A LIBSVM file (1-based indices; labels −1/+1 become 0/1), plain or gzipped, as one block. */
  static TrainingBlock libsvm(Path file, int d, int maxRows) throws IOException {
    TrainingBlockBuilder b = new TrainingBlockBuilder(d);
    try (InputStream raw = Files.newInputStream(file);
        InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw;
        BufferedReader r = new BufferedReader(new InputStreamReader(in,
            StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null && b.numRows() < maxRows) {
        String[] t = line.trim().split("\\s+");
        if (t.length == 0 || t[0].isEmpty()) {
          continue;
        }
        int label = (int) Double.parseDouble(t[0]);
        int[] idx = new int[t.length - 1];
        double[] val = new double[t.length - 1];
        for (int i = 1; i < t.length; i++) {
          int colon = t[i].indexOf(':');
          idx[i - 1] = Integer.parseInt(t[i].substring(0, colon)) - 1;
          val[i - 1] = Double.parseDouble(t[i].substring(colon + 1));
        }
        b.addSparse(Math.max(0, label), 1.0, idx, val, idx.length);
      }
    }
    return b.build();
  }

  private static Path dataFile(Path dir, String set, String file) {
    Path plain = dir.resolve(set).resolve(file);
    Path gzipped = plain.resolveSibling(file + ".gz");
    return !Files.exists(plain) && Files.exists(gzipped) ? gzipped : plain;
  }

  static MixingSimulation load(Path dir, String spec) throws IOException {
    int at = spec.indexOf('@');
    String set = at < 0 ? spec : spec.substring(0, at);
    int maxRows = at < 0 ? Integer.MAX_VALUE : Integer.parseInt(spec.substring(at + 1));
    int[] shape;
    switch (set) {
      case "breast_cancer":
        shape = new int[] {30, 2};
        break;
      case "iris":
        shape = new int[] {4, 3};
        break;
      case "pendigits":
        shape = new int[] {16, 10};
        break;
      case "skin_nonskin":
        shape = new int[] {3, 2};
        break;
      case "spark_sample_libsvm":
        shape = new int[] {692, 2};
        break;
      case "text-like-105":
        return textLike(spec);
      default:
        return generated(spec);
    }
    return new MixingSimulation(spec, libsvm(dataFile(dir, set, "train.libsvm"), shape[0],
        maxRows), libsvm(dataFile(dir, set, "test.libsvm"), shape[0], Integer.MAX_VALUE),
        shape[0], shape[1]);
  }

  /** The many-class section's text-like set (ExchangeBench.manyClassData), its rows and split. */
  static MixingSimulation textLike(String spec) {
    TextLikeData data = ExchangeBench.manyClassData();
    int trainRows = (int) ExchangeBench.MANY_CLASS_TRAIN_ROWS;
    int testRows = (int) ExchangeBench.MANY_CLASS_TEST_ROWS;
    return new MixingSimulation(spec, textLikeBlock(data, 0, trainRows),
        textLikeBlock(data, trainRows, testRows), data.numFeatures, data.numClasses);
  }

  private static TrainingBlock textLikeBlock(TextLikeData data, long first, int rows) {
    TrainingBlockBuilder b = new TrainingBlockBuilder(data.numFeatures);
    Iterator<Row> it = data.rows(first, first + rows);
    while (it.hasNext()) {
      Row row = it.next();
      SparseVector x = (SparseVector) row.get(1);
      b.addSparse((int) row.getDouble(0), 1.0, x.indices(), x.values(), x.indices().length);
    }
    return b.build();
  }

  /** BenchmarkRunner's generated sets (same generators and seeds), at any number of rows. */
  static MixingSimulation generated(String spec) {
    int dash = spec.lastIndexOf('-');
    // BenchmarkRunner's two wide sets are named by their size alone.
    String family = spec.equals("gen-sparse-1M") ? "gen-sparse-wide"
        : spec.equals("gen-dense-200k") ? "gen-dense-wide" : spec.substring(0, dash);
    String size = spec.substring(dash + 1);
    long scale = size.endsWith("M") ? 1_000_000L : size.endsWith("k") ? 1000L : 1L;
    int rows = (int) (Long.parseLong(size.replaceAll("[kM]$", "")) * scale);
    SyntheticData.Builder b = SyntheticData.builder().margin(0.05).labelNoise(0.05);
    switch (family) {
      case "gen-sparse":
        b.numFeatures(10_000).nonZerosPerRow(20).seed(11);
        break;
      case "gen-dense":
        b.numFeatures(50).dense().seed(12);
        break;
      case "gen-sparse-wide":
        b.numFeatures(100_000).nonZerosPerRow(20).seed(13);
        break;
      case "gen-dense-wide":
        b.numFeatures(100).dense().seed(14);
        break;
      case "gen-multi-sparse":
        b.numFeatures(1000).nonZerosPerRow(30).numClasses(10).seed(18);
        break;
      case "gen-multi-dense":
        b.numFeatures(20).dense().numClasses(10).margin(0.02).labelNoise(0.1).seed(17);
        break;
      case "gen-multi20-sparse":
        b.numFeatures(2000).nonZerosPerRow(20).numClasses(20).seed(16);
        break;
      default:
        throw new IllegalArgumentException("unknown data set " + spec);
    }
    SyntheticData data = b.build();
    int testRows = (int) Math.min(100_000, Math.max(1000, rows / 10));
    return new MixingSimulation(spec, generated(data, 0, rows), generated(data, rows, testRows),
        data.numFeatures(), data.numClasses());
  }

  private static TrainingBlock generated(SyntheticData spec, long first, int rows) {
    SyntheticRows gen = spec.rows();
    int[] idx = new int[gen.storedPerRow()];
    double[] val = new double[gen.storedPerRow()];
    TrainingBlockBuilder b = new TrainingBlockBuilder(spec.numFeatures());
    for (int i = 0; i < rows; i++) {
      int label = gen.row(first + i, idx, val);
      if (spec.isDense()) {
        b.addDense(label, 1.0, val);
      } else {
        b.addSparse(label, 1.0, idx, val, idx.length);
      }
    }
    return b.build();
  }

  /** The training rows dealt over {@code workers}: round-robin, or contiguous slices. */
  TrainingBlock[] split(int workers, boolean contiguous) {
    return split(workers, contiguous, VisitOrder.of(true, ShuffleScope.ROWS, 0));
  }

  /** As {@link #split(int, boolean)}, each worker's rows stored in {@code visits}' layout. */
  TrainingBlock[] split(int workers, boolean contiguous, VisitOrder visits) {
    TrainingBlockBuilder[] parts = new TrainingBlockBuilder[workers];
    for (int i = 0; i < workers; i++) {
      parts[i] = new TrainingBlockBuilder(d);
    }
    int[] idx = new int[d];
    double[] val = new double[d];
    FeatureBlock x = train.features();
    int n = train.numRows();
    int[] rowsOf = new int[workers];
    for (int r = 0; r < n; r++) {
      int nnz = x.copyRow(r, idx, val);
      int worker = r % workers;
      if (contiguous) {
        // Worker p holds rows [p·n/W, (p+1)·n/W), Spark's parallelize slices.
        worker = 0;
        while ((long) (worker + 1) * n / workers <= r) {
          worker++;
        }
      }
      parts[worker].addSparse(train.label(r), train.weight(r), idx, val, nnz);
      rowsOf[worker]++;
    }
    TrainingBlock[] out = new TrainingBlock[workers];
    for (int i = 0; i < workers; i++) {
      out[i] = parts[i].build(forWorker(visits, parts[i].storedBytes()).layout(i, 0, rowsOf[i]));
    }
    return out;
  }

  int trainingRows() {
    return train.numRows();
  }

  int numFeatures() {
    return d;
  }

  // -------------------------------------------------------------------------------- training

  /**
   * Trains {@code epochs} epochs (no early stop: tol = 0, and it goes on after an epoch without
   * updates only if there is none, as the trainer stops there) and scores every epoch's
   * averaged model on the test rows.
   */
  Outcome run(MixingMode mixing, String roundsSpec, int workers, long seed, int epochs,
      boolean contiguous) {
    LearnerConfig config = new LearnerConfig(d, k, true, 1.0, UpdateRule.PERCEPTRON, 1.0,
        Averaging.AVERAGE);
    VisitOrder visits = VisitOrder.of(true, SCOPE, seed);
    TrainingBlock[] blocks = split(workers, contiguous, visits);
    int rounds = rounds(mixing, roundsSpec, workers, train.numRows());
    int n = config.stateLength();
    double[] w = new double[n];
    double[] u = new double[n];
    LinearState driver = new LinearState(w, u, 0.0);
    // One working copy shared by the workers in turn: equal to w, its accumulator zero, between
    // workers (each worker's round restores the coordinates it wrote).
    double[] work = new double[n];
    double[] workU = new double[n];
    TouchedSet touched = new TouchedSet(n);
    TouchedSet support = new TouchedSet(n);
    TouchedSet changed = new TouchedSet(n);
    double total = 0.0;
    double maxSquaredNorm = 0.0;
    for (TrainingBlock b : blocks) {
      total += b.totalWeight();
      maxSquaredNorm = Math.max(maxSquaredNorm, maxSquaredNorm(b));
    }
    BlockMomentum momentum = null;
    long restarts = 0;
    // Look-aheads that check the bound's norm, and (BlockMomentum) those its bounds settled.
    long normChecks = 0;
    if (mixing == MixingMode.MOMENTUM && workers > 1) {
      double rho = (k == 2 ? 1.0 : 2.0) * 1.0 * 1.0 * (maxSquaredNorm + 1.0);
      double beta = BETA_SCALE == 1.0 ? BlockMomentum.defaultMomentum(workers)
          : Math.max(0.0, 1.0 - BETA_SCALE / workers);
      momentum = new BlockMomentum(n, beta, rho, 0.0);
    }
    double[] accuracy = new double[epochs];
    Arrays.fill(accuracy, Double.NaN);
    long[] updatesPerEpoch = new long[epochs];
    double lastRoundMass = Double.POSITIVE_INFINITY;
    for (int epoch = 1; epoch <= epochs; epoch++) {
      EpochOrder[] orders = new EpochOrder[workers];
      for (int i = 0; i < workers; i++) {
        VisitOrder worker = forWorker(visits, blocks[i].sizeInBytes());
        orders[i] = CHUNK_ROWS > 0 && worker.scope() == ShuffleScope.CHUNKS
            ? VisitOrder.chunked(seed, epoch, i, blocks[i].numRows(), CHUNK_ROWS)
            : worker.epochOrder(epoch, i, blocks[i].features());
      }
      double epochClock = driver.clock();
      long epochUpdates = 0;
      for (int round = 0; round < rounds; round++) {
        double roundEnd = round == rounds - 1 ? epochClock + total
            : epochClock + total * (round + 1) / rounds;
        if (momentum != null) {
          if (momentum.velocityMass() != 0.0) {
            normChecks++;
          }
          momentum.lookAhead(w, u, driver.clock(), support.toArray(), changed);
          for (int j : changed.drain()) {
            work[j] = w[j];
          }
        }
        ParameterMix mix = new ParameterMix(workers);
        double sumK = 0.0;
        double sumK2 = 0.0;
        int active = 0;
        for (int i = 0; i < workers; i++) {
          TrainingBlock block = blocks[i];
          LinearState state = new LinearState(work, workU, driver.clock());
          double workerWeight = block.totalWeight();
          double clockScale = workerWeight > 0 ? total / workerWeight : 0.0;
          EpochStats stats = new EpochStats();
          int rows = block.numRows();
          int from = (int) ((long) rows * round / rounds);
          int to = (int) ((long) rows * (round + 1) / rounds);
          OnlineLearner.runEpoch(config, block, orders[i], from, to, state, clockScale, stats,
              null, touched);
          int[] written = touched.drain();
          StateDelta delta = StateDelta.between(written, work, w, workU, workers == 1,
              StateDelta.DENSE_ABOVE);
          for (int j : written) {
            work[j] = w[j];
            workU[j] = 0.0;
          }
          mix.add(new WorkerResult(i, mixing.mixWeight(workerWeight, stats.updates), delta,
              new EpochStats[] {stats}));
          epochUpdates += stats.updates;
          sumK += stats.updates;
          sumK2 += (double) stats.updates * stats.updates;
          active += stats.updates > 0 ? 1 : 0;
        }
        WorkerResult mixed = mix.result();
        StateDelta change = mixed.delta();
        change.applyTo(w, u);
        for (int e = 0, m = change.storedEntries(); e < m; e++) {
          int j = change.coordinate(e);
          support.mark(j);
          work[j] = w[j];
        }
        driver.setClock(roundEnd);
        if (momentum != null) {
          if (GRADIENT_RESTART) {
            double[] velocity = momentum.velocity();
            double dot = 0.0;
            for (int e = 0, m = change.storedEntries(); e < m; e++) {
              dot += change.weightChange(e) * velocity[change.coordinate(e)];
            }
            if (dot < 0.0) {
              momentum.restore(new double[n], momentum.mass(), 0.0, momentum.restarts() + 1);
            }
          }
          if (RESTART.equals("roundrise") && mixed.stepSum() > lastRoundMass) {
            momentum.restore(new double[n], momentum.mass(), 0.0, momentum.restarts() + 1);
          }
          lastRoundMass = mixed.stepSum();
          momentum.afterRound(change, mixed.stepSum());
          double a = BETA_RULE.equals("active") ? active
              : BETA_RULE.equals("effective") && sumK2 > 0 ? sumK * sumK / sumK2 : workers;
          double factor = (1.0 - 1.0 / a) / momentum.momentum();
          if (a < workers && momentum.velocityMass() > 0) {
            double[] v = momentum.velocity().clone();
            for (int j = 0; j < v.length; j++) {
              v[j] *= factor;
            }
            momentum.restore(v, momentum.mass(), momentum.velocityMass() * factor,
                momentum.restarts());
          }
        }
      }
      updatesPerEpoch[epoch - 1] = epochUpdates;
      if (momentum != null && epochUpdates < TAIL_SHARE * train.numRows()) {
        restarts = momentum.restarts() + 1;
        momentum = null;
      }
      if (momentum != null && (RESTART.equals("everyepoch") || RESTART.equals("epochrise")
          && epoch > 1 && epochUpdates > updatesPerEpoch[epoch - 2])) {
        momentum.restore(new double[n], momentum.mass(), 0.0, momentum.restarts() + 1);
      }
      accuracy[epoch - 1] = accuracy(config, driver.modelWeights());
      if (epochUpdates == 0) {
        Arrays.fill(accuracy, epoch, epochs, accuracy[epoch - 1]);
        break;
      }
    }
    Outcome outcome = new Outcome(accuracy, rounds, momentum == null ? restarts
        : momentum.restarts(), driver.modelWeights(), updatesPerEpoch);
    outcome.normChecks = normChecks;
    outcome.settledChecks = momentum == null ? 0 : momentum.certifiedLookAheads();
    return outcome;
  }

  private static double maxSquaredNorm(TrainingBlock block) {
    int d = block.features().numFeatures();
    int[] idx = new int[d];
    double[] val = new double[d];
    double max = 0.0;
    for (int r = 0; r < block.numRows(); r++) {
      int nnz = block.features().copyRow(r, idx, val);
      double s = 0.0;
      for (int e = 0; e < nnz; e++) {
        s += val[e] * val[e];
      }
      max = Math.max(max, s);
    }
    return max;
  }

  /** Rounds per epoch: a number, W, the trainer's automatic choice, or the rule m&lt;M&gt;. */
  static int rounds(MixingMode mixing, String spec, int workers, long rows) {
    if (spec == null || spec.isEmpty()) {
      return 1;
    }
    if (spec.equals("W")) {
      return workers;
    }
    if (spec.equals("auto")) {
      return mixing == MixingMode.MOMENTUM ? BlockMomentum.automaticRounds(workers, rows) : 1;
    }
    if (spec.startsWith("m")) {
      long perRound = Long.parseLong(spec.substring(1));
      long byRows = rows / workers / perRound;
      return (int) Math.max(1, Math.min(Math.min(workers, 64), byRows));
    }
    return Integer.parseInt(spec);
  }

  private double accuracy(LearnerConfig config, double[] model) {
    double[] a = Predictor.linear(config.numClasses(), config.numFeatures(), 0.0, model)
        .weightedAccuracy(test);
    return a[0] / a[1];
  }

  // ------------------------------------------------------------------------------------ main

  public static void main(String[] args) throws IOException {
    if (args.length > 0 && args[0].equals("--check-spark")) {
      SparkCheck.main(Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    if (args.length < 4) {
      System.err.println("usage: MixingSimulation DATA_DIR SETS CONFIGS WORKERS [SEEDS [EPOCHS"
          + " [roundrobin|contiguous]]]");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    List<String> sets = List.of(args[1].split(","));
    List<String> configs = List.of(args[2].split(","));
    int[] workers = Arrays.stream(args[3].split(",")).mapToInt(Integer::parseInt).toArray();
    long[] seeds = Arrays.stream((args.length > 4 ? args[4] : "42").split(","))
        .mapToLong(Long::parseLong).toArray();
    int epochs = args.length > 5 ? Integer.parseInt(args[5]) : 10;
    boolean contiguous = args.length > 6 && args[6].equals("contiguous");
    for (String spec : sets) {
      MixingSimulation sim = load(dir, spec);
      StringBuilder table = new StringBuilder();
      table.append(String.format(Locale.ROOT, "%n#### %s (%,d training rows, %,d test rows;"
          + " accuracy after epoch %d, mean of %d seed(s); Δ to W=%d in points; rounds)%n%n"
          + "| mixing |", spec, sim.train.numRows(), sim.test.numRows(), epochs, seeds.length,
          workers[0]));
      for (int p : workers) {
        table.append(" W=").append(p).append(" |");
      }
      table.append("\n|---|").append("---|".repeat(workers.length)).append('\n');
      for (String c : configs) {
        String[] parts = c.split(":", 2);
        MixingMode mode = MixingMode.fromParam(parts[0]);
        String roundsSpec = parts.length > 1 ? parts[1] : "";
        table.append("| ").append(c).append(" |");
        double reference = Double.NaN;
        for (int p : workers) {
          double sum = 0.0;
          int rounds = 0;
          for (long seed : seeds) {
            Outcome o = sim.run(mode, roundsSpec, p, seed, epochs, contiguous);
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                "RUN %s %d %d %s %d %d", spec, sim.train.numRows(), p, c, o.rounds, seed));
            for (double a : o.accuracy) {
              line.append(String.format(Locale.ROOT, " %.4f", a));
            }
            line.append(' ').append(o.restarts).append(" |");
            for (long u : o.updates) {
              line.append(' ').append(u);
            }
            line.append(" | checks ").append(o.normChecks).append(" settled ")
                .append(o.settledChecks);
            System.out.println(line);
            System.out.flush();
            sum += o.accuracy[epochs - 1];
            rounds = o.rounds;
          }
          double mean = sum / seeds.length;
          if (Double.isNaN(reference)) {
            reference = mean;
          }
          table.append(String.format(Locale.ROOT, " %.4f (%+.2f) %d |", mean,
              100 * (mean - reference), rounds));
        }
        table.append('\n');
      }
      System.out.print(table);
      System.out.flush();
    }
  }
}
