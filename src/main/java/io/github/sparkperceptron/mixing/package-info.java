/**
 * Parameter mixing: how the partitions' results of an epoch become one model, independent of Spark.
 *
 * <pre>
 * McDonald, Hall &amp; Mann, "Distributed Training Strategies for the Structured Perceptron",
 * NAACL-HLT 2010: iterative parameter mixing (IPM). Each epoch n every partition i starts from the
 * mixed weights w̄⁽ⁿ⁾, runs one epoch over its own rows, and the driver mixes
 *     w̄⁽ⁿ⁺¹⁾ = Σ_i μ_i,n · w_i,n      with Σ_i μ_i,n = 1.
 * uniform:   μ_i = n_i / N                    (share of the examples)
 * mistakes:  μ_i,n = k_i,n / Σ_j k_j,n        (share of the epoch's updates; the weighting of the
 *            paper's Theorem 3: Σ_n Σ_i μ_i,n·k_i,n ≤ R²/γ² on separable data)
 * oneshot:   every partition trains alone, as the serial algorithm would (stopping when an epoch
 *            makes no update), and the partitions' final models (their averages, when
 *            averaging) are mixed once with the uniform weights (the paper's "parameter mixing",
 *            Mann et al. 2009)
 * </pre>
 *
 * <p><b>Averaging under mixing.</b> Every partition's averaging clock advances by T/T_i per unit of
 * sample weight (T the whole epoch's weight, T_i the partition's), so each partition's epoch spans
 * the same stretch [c, c+T] of the clock. The accumulators u_i are then mixed with the same μ as the
 * weights, which makes the mixed average w̄ − ū/(c+T) equal to (c·previous average + T·Σ_i μ_i·
 * mean of partition i's intermediate weights) / (c+T): the averaged model is the clock-weighted mean
 * over epochs of the μ-mixed per-partition means. With one partition μ = 1 and T/T_i = 1, which is
 * the serial averaged perceptron, bit for bit.
 *
 * <p><b>Reproducibility.</b> Spark merges task results in completion order, and floating-point
 * addition is not associative, so a plain sum would change in its last bits from run to run.
 * {@link io.github.sparkperceptron.mixing.ParameterMix} therefore combines results along one fixed
 * binary tree over the partition indices, whatever order they arrive in.
 */
package io.github.sparkperceptron.mixing;
