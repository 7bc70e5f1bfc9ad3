/**
 * Parameter mixing: how the workers' results of a mixing round become one model, independent
 * of Spark.
 *
 * <pre>
 * McDonald, Hall &amp; Mann, "Distributed Training Strategies for the Structured Perceptron",
 * NAACL-HLT 2010: iterative parameter mixing (IPM). Each round t every worker i starts from the
 * mixed weights w̄⁽ᵗ⁾, runs its share of the epoch over its own rows, and the driver mixes
 *     w̄⁽ᵗ⁺¹⁾ = Σ_i μ_i,t · w_i,t = w̄⁽ᵗ⁾ + Σ_i μ_i,t · δ_i,t      with Σ_i μ_i,t = 1,
 * where δ_i,t = w_i,t − w̄⁽ᵗ⁾ is what worker i changed (a StateDelta: only the coordinates
 * its updates touched, so a round's exchange costs O(changed coordinates), not O(K·d)).
 * uniform:   μ_i = n_i / N                    (share of the examples)
 * mistakes:  μ_i,t = k_i,t / Σ_j k_j,t        (share of the round's updates; the weighting of the
 *            paper's Theorem 3: Σ_t Σ_i μ_i,t·k_i,t ≤ R²/γ² on separable data)
 * momentum:  mistake-weighted rounds from a Nesterov look-ahead with block momentum
 *            β = 1 − 1/W (Chen &amp; Huo, ICASSP 2016; see BlockMomentum): the same bound,
 *            kept by a restart whenever a look-ahead would break its invariant
 * oneshot:   every worker trains alone, as the serial algorithm would (stopping when an epoch
 *            makes no update), and the workers' final models (their averages, when
 *            averaging) are mixed once with the uniform weights (the paper's "parameter mixing",
 *            Mann et al. 2009)
 * </pre>
 *
 * <p>An epoch is R mixing rounds (parameter {@code mixingRounds}): round r visits the r-th of R
 * consecutive slices of every worker's epoch order. One round per epoch is McDonald et al.'s
 * IPM; more rounds give block momentum the rounds it needs to build up (about W of them, for W workers).
 *
 * <p><b>Averaging under mixing.</b> Every worker's averaging clock advances by T/T_i per unit of
 * sample weight (T the whole epoch's weight, T_i the worker's), so each worker's round spans
 * the same stretch [c, c+T/R] of the clock. A worker accumulates its round's averaging updates
 * from zero (δu_i), and the driver adds the μ-mixed δu to u, which makes the mixed average
 * w̄ − ū/c equal to the clock-weighted mean over rounds of the μ-mixed per-worker means of
 * their intermediate weights. A momentum jump at clock c adds c·jump to u, so the average keeps
 * averaging the weights the workers actually started from. With one worker μ = 1, T/T_i = 1
 * and the worker's weights are taken as they are: the serial averaged perceptron, bit for bit
 * (its accumulator summed per epoch, then added).
 *
 * <p><b>Reproducibility.</b> Spark merges task results in completion order, and floating-point
 * addition is not associative, so a plain sum would change in its last bits from run to run.
 * {@link io.github.sparkperceptron.internal.mixing.ParameterMix} therefore combines results along one fixed
 * binary tree over the worker indices, whatever order they arrive in; sparse and dense deltas
 * evaluate the same expressions coordinate by coordinate, so the representation never changes a
 * bit. {@link io.github.sparkperceptron.internal.mixing.RoundTree} runs the same tree among the workers
 * themselves (reduce up, broadcast down), so that every worker holds the driver's mix.
 */
package io.github.sparkperceptron.internal.mixing;
