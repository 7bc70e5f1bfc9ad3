package io.github.sparkperceptron.internal.rounds;

import io.github.sparkperceptron.internal.mixing.StateDelta;
import io.github.sparkperceptron.internal.plan.Settings;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;

/**
 * A seam for recovery tests. Spark offers no way to make a chosen task fail from outside (its
 * executor plugins' exceptions are swallowed), so worker-epoch tasks read one job-local
 * property, {@link Settings#TEST_INJECT_FAILURE}, and fail on purpose when a test set it:
 * <ul>
 *   <li>{@code first-attempt}: the first attempt of every worker epoch fails before it starts
 *       (Spark's retries must then produce the same model);</li>
 *   <li>{@code first-attempt-mid-epoch}: the first attempt of every worker epoch learns the
 *       first half of its rows, in the epoch's order, into its copy of the state, then fails:
 *       the retry must start again from the broadcast state, not from the half-trained copy
 *       (in local mode every task of the JVM shares the broadcast object, so a task that
 *       trained it in place would be caught). When an epoch's rounds run in one barrier stage
 *       ({@link BarrierRounds}), the first attempt of that stage loses one task, worker
 *       (epoch − 1) mod W, halfway through round ⌊R/2⌋, after the rounds before it were mixed
 *       into every task's weights: the retried stage must start the epoch again from the
 *       shipped weights and momentum;</li>
 *   <li>{@code from-epoch:N}: every attempt of epoch N and later fails, which aborts the training
 *       as a dying driver would (a resumed training must then end with the same model);</li>
 *   <li>{@code barrier-setup}: every barrier task fails to connect to the others, as behind a
 *       firewall (the training must go on with one Spark job per round);</li>
 *   <li>{@code exit-mid-epoch:N} (a cluster only): the first attempt of epoch N's barrier stage
 *       ends the JVM of worker (N − 1) mod W's executor halfway through round ⌊R/2⌋, as a
 *       killed executor (Spark must rerun the stage elsewhere, its lost blocks rebuilt);</li>
 *   <li>{@code barrier-blackhole:PORT}: every barrier task tells the others PORT as its
 *       listener's, a port whose connections are never answered (a firewall that drops
 *       packets): the children's connects time out (the training must fall back to jobs within
 *       about the connect timeout, with the same model);</li>
 *   <li>{@code slow-round:MILLIS}: worker (epoch − 1) mod W of every barrier stage waits MILLIS
 *       before round ⌊R/2⌋ (a round slower than the exchange's timeout must not fail the
 *       training);</li>
 *   <li>{@code corrupt-digest}: worker (epoch − 1) mod W reports a digest of other weights;
 *       {@code corrupt-report}: the workers report mixes other than those they applied;
 *       {@code wrong-mix}: every worker applies the same wrong mix, as a defect of the
 *       all-reduce would (each must be caught on the driver: the digest check, the replay, the
 *       audit of the reported mixes).</li>
 * </ul>
 * Without the property (always, outside tests) it costs one property lookup per worker epoch;
 * the kernel knows nothing of it (the failing attempt runs the kernel on a prefix of the order).
 */
public final class FaultInjection {
  /** The mode that ends an executor's JVM in the middle of a barrier stage's epoch. */
  private static final String EXIT_MID_EPOCH = "exit-mid-epoch:";
  private static final String BLACKHOLE = "barrier-blackhole:";
  private static final String SLOW_ROUND = "slow-round:";

  private FaultInjection() {
  }

  public static void beforeWorkerEpoch(int epoch, int worker) {
    TaskContext task = TaskContext.get();
    String mode = task == null ? null : task.getLocalProperty(Settings.TEST_INJECT_FAILURE);
    if (mode == null) {
      return;
    }
    boolean fail = mode.equals("first-attempt") ? isFirstAttempt(task)
        : mode.startsWith("from-epoch:") && epoch >= Integer.parseInt(mode.substring(11));
    if (fail) {
      throw failure(epoch, worker, task, mode, "");
    }
  }

  /**
   * How many rows (a prefix of the epoch's order of {@code rows}) this attempt learns before it
   * must fail, or −1 when it runs normally.
   */
  public static int rowsBeforeFailure(int epoch, int worker, int rows) {
    TaskContext task = TaskContext.get();
    String mode = task == null ? null : task.getLocalProperty(Settings.TEST_INJECT_FAILURE);
    return "first-attempt-mid-epoch".equals(mode) && isFirstAttempt(task) ? rows / 2 : -1;
  }

  /**
   * Whether this attempt must fail halfway through round {@code round} of {@code rounds}: under
   * {@code first-attempt-mid-epoch}, every first attempt of a one-round task; of a task running
   * the whole epoch ({@code wholeEpoch}, a barrier stage), worker (epoch − 1) mod W in round
   * ⌊R/2⌋, after the rounds before it were mixed into every worker's weights.
   */
  static boolean failsMidRound(int epoch, int worker, int workers, int round, int rounds,
      boolean wholeEpoch) {
    TaskContext task = TaskContext.get();
    String mode = task == null ? null : task.getLocalProperty(Settings.TEST_INJECT_FAILURE);
    if (mode == null || !isFirstAttempt(task)) {
      return false;
    }
    boolean middle = worker == (epoch - 1) % workers && round == rounds / 2;
    if (mode.startsWith(EXIT_MID_EPOCH)) {
      return wholeEpoch && middle && epoch == Integer.parseInt(mode.substring(15));
    }
    return "first-attempt-mid-epoch".equals(mode) && (!wholeEpoch || middle);
  }

  /** Whether this barrier task must fail to set its exchange up. */
  static boolean barrierSetupFails() {
    TaskContext task = TaskContext.get();
    return task != null && "barrier-setup".equals(task.getLocalProperty(Settings.TEST_INJECT_FAILURE));
  }

  /**
   * The port every barrier task tells the others instead of its listener's
   * ({@code barrier-blackhole:PORT}), or 0.
   */
  static int advertisedPort() {
    String mode = mode();
    return mode != null && mode.startsWith(BLACKHOLE) ? Integer.parseInt(mode.substring(
        BLACKHOLE.length())) : 0;
  }

  /** Under {@code slow-round:MILLIS}, the chosen worker's wait before round ⌊R/2⌋. */
  static void beforeBarrierRound(int epoch, int worker, int workers, int round, int rounds) {
    String mode = mode();
    if (mode != null && mode.startsWith(SLOW_ROUND) && worker == (epoch - 1) % workers
        && round == rounds / 2) {
      try {
        Thread.sleep(Long.parseLong(mode.substring(SLOW_ROUND.length())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The round's mix as every worker applies it: under {@code wrong-mix}, a changed one. */
  static StateDelta appliedMix(StateDelta mix) {
    return "wrong-mix".equals(mode()) ? perturbed(mix) : mix;
  }

  /** The mix a round's reporter reports: under {@code corrupt-report}, another than it applied. */
  static StateDelta reportedMix(StateDelta mix) {
    return "corrupt-report".equals(mode()) ? perturbed(mix) : mix;
  }

  /** The digest a worker reports: under {@code corrupt-digest}, worker (epoch − 1) mod W's lies. */
  static long reportedDigest(int epoch, int worker, int workers, long digest) {
    return "corrupt-digest".equals(mode()) && worker == (epoch - 1) % workers ? digest ^ 1L
        : digest;
  }

  /** Every change scaled by 1 − 2⁻¹⁰: the same shape, other bits (where there is a change). */
  private static StateDelta perturbed(StateDelta mix) {
    return mix.blend(StateDelta.none(mix.length(), mix.hasAverage()), 1.0 / 1024);
  }

  private static String mode() {
    TaskContext task = TaskContext.get();
    return task == null ? null : task.getLocalProperty(Settings.TEST_INJECT_FAILURE);
  }

  /**
   * Whether this is the first try of the task's work: a barrier stage is retried as a whole, as
   * a new stage attempt whose tasks are attempt 0 again, so both numbers count.
   */
  private static boolean isFirstAttempt(TaskContext task) {
    return task.attemptNumber() == 0 && task.stageAttemptNumber() == 0;
  }

  /**
   * Fails the attempt after it learned {@code rowsLearned} rows of its epoch; under
   * {@code exit-mid-epoch:N}, ends the executor's JVM at once instead, as a killed process ends
   * (no shutdown hooks, no goodbye to the driver).
   */
  public static void failMidEpoch(int epoch, int worker, int rowsLearned) {
    TaskContext task = TaskContext.get();
    String mode = task.getLocalProperty(Settings.TEST_INJECT_FAILURE);
    if (mode.startsWith(EXIT_MID_EPOCH)) {
      if ("driver".equals(SparkEnv.get().executorId())) {
        throw new IllegalStateException(Settings.TEST_INJECT_FAILURE + "=" + mode + " ends an executor's JVM: it"
            + " needs a cluster, not local mode, whose executor is the driver");
      }
      Runtime.getRuntime().halt(137);
    }
    throw failure(epoch, worker, task, mode, " after learning " + rowsLearned + " rows");
  }

  private static IllegalStateException failure(int epoch, int worker, TaskContext task,
      String mode, String when) {
    return new IllegalStateException("injected failure: epoch " + epoch + ", worker "
        + worker + ", attempt " + task.attemptNumber() + " of stage attempt "
        + task.stageAttemptNumber() + when + " (" + Settings.TEST_INJECT_FAILURE + "=" + mode
        + ")");
  }
}
