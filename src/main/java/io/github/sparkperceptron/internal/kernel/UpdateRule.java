package io.github.sparkperceptron.internal.kernel;

/**
 * How far to move the weights after seeing one example: the step τ in w ← w + τ·y·x.
 *
 * <pre>
 * perceptron  Rosenblatt (1958); Novikoff (1962); multiclass: Collins (2002)
 *             τ = η·s            when the margin y·(w·x+b) ≤ 0, else 0
 * pa          Crammer, Dekel, Keshet, Shalev-Shwartz &amp; Singer, "Online Passive-Aggressive
 *             Algorithms", JMLR 7 (2006), eq. (6)-(8) ("MIRA" family); with hinge loss
 *             ℓ = max(0, 1 − y·(w·x+b)) and q = ‖x‖² (+1 for the bias when it is fitted):
 *             τ = ℓ / q                       (PA)
 * pa1         τ = min(C·s, ℓ / q)             (PA-I)
 * pa2         τ = ℓ / (q + 1/(2·C·s))         (PA-II)
 * </pre>
 *
 * <p>η is {@code stepSize}, s the sample weight, C {@code aggressiveness}. Multiclass PA uses the
 * max-loss variant (Crammer et al. 2006, section 7) against the highest-scoring wrong class r:
 * ℓ = max(0, 1 − (s_y − s_r)) and q = 2‖x‖², since both rows y and r move. The PA rules have no
 * learning rate (τ is the step), and a zero vector (q = 0) never moves them.
 */
public enum UpdateRule implements ParamValue {
  PERCEPTRON("perceptron", "mistake-driven, Rosenblatt 1958"),
  PA("pa", "passive-aggressive, Crammer et al. 2006"),
  PA1("pa1", "PA-I: the PA step capped at C"),
  PA2("pa2", "PA-II: the PA step softened by 1/(2C)");

  private final String paramValue;
  private final String description;

  UpdateRule(String paramValue, String description) {
    this.paramValue = paramValue;
    this.description = description;
  }

  /** The value of the {@code updateRule} param that selects this rule. */
  @Override
  public String paramValue() {
    return paramValue;
  }

  @Override
  public String description() {
    return description;
  }

  public boolean isPassiveAggressive() {
    return this != PERCEPTRON;
  }

  /**
   * The passive-aggressive step for a positive hinge loss.
   *
   * @param loss ℓ &gt; 0
   * @param squaredNorm q: ‖x‖² (plus the bias), doubled for multiclass
   * @param cost C·s, the aggressiveness scaled by the sample weight
   */
  double passiveAggressiveStep(double loss, double squaredNorm, double cost) {
    switch (this) {
      case PA:
        return squaredNorm > 0 ? loss / squaredNorm : 0.0;
      case PA1:
        return squaredNorm > 0 ? Math.min(cost, loss / squaredNorm) : 0.0;
      case PA2:
        return squaredNorm > 0 ? loss / (squaredNorm + 1.0 / (2.0 * cost)) : 0.0;
      default:
        throw new IllegalStateException("not a passive-aggressive rule: " + this);
    }
  }

  /** Looks a rule up by its param value (case-insensitive). */
  public static UpdateRule fromParam(String value) {
    return ParamValue.parse(UpdateRule.class, "updateRule", value);
  }
}
