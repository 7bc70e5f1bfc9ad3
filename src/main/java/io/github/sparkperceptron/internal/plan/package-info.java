/**
 * What a training asks and how it runs, decided once on the driver before any data move:
 * {@link io.github.sparkperceptron.internal.plan.TrainingConfig} (the params, read once from the
 * estimator), {@link io.github.sparkperceptron.internal.plan.TrainingPlan} (the one decision
 * object, made once per {@code fit} and once per stream batch: how the rounds run, barrier stage
 * or jobs, gathered or coalesced, and the memory plan), the memory plan itself
 * ({@link io.github.sparkperceptron.internal.plan.MemoryPlan} over
 * {@link io.github.sparkperceptron.internal.plan.ClusterMemory}: it refuses what cannot fit before
 * anything of the model's size is allocated, and counts the cached chunks), the mixing settings
 * resolved for the data ({@link io.github.sparkperceptron.internal.plan.MixingSettings}: block
 * momentum's β and the rounds per epoch, Chen &amp; Huo 2016) and the library's Spark
 * configuration keys, all in one table ({@link io.github.sparkperceptron.internal.plan.Settings}).
 * The layout of the data ({@code internal.blocks}) and the rounds ({@code internal.rounds}) read
 * the plan; they never ask the scheduler themselves.
 */
package io.github.sparkperceptron.internal.plan;
