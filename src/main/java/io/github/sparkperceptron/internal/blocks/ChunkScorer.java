package io.github.sparkperceptron.internal.blocks;

import io.github.sparkperceptron.internal.kernel.LocalFeatures;
import io.github.sparkperceptron.internal.kernel.Predictor;
import io.github.sparkperceptron.internal.kernel.TrainingBlock;

/**
 * A model's predictor for the chunks of one worker's rows as they are stored
 * ({@link Predictor#forBlock}): rows numbered by the worker's own features are scored by the
 * model's weights of those features, gathered once per worker (its chunks share one map), not
 * once per chunk; rows in the model's numbers by the model itself. Not thread-safe: one per task.
 */
final class ChunkScorer {
  private final Predictor model;
  private LocalFeatures map;
  private Predictor local;

  ChunkScorer(Predictor model) {
    this.model = model;
  }

  /** The predictor that scores {@code chunk}'s rows as the model scores them given whole. */
  Predictor of(TrainingBlock chunk) {
    LocalFeatures features = chunk.localFeatures();
    if (features == null || features.isIdentity()) {
      return model;
    }
    if (features != map) {
      map = features;
      local = model.forBlock(chunk);
    }
    return local;
  }
}
