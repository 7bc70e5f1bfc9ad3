package io.github.sparkperceptron.onnx;

import io.github.sparkperceptron.internal.kernel.VotedPerceptron;

/**
 * A {@link VotedPerceptron} laid out as the dense tensors of its ONNX graph
 * ({@link PerceptronGraphs#voted}): the start vectors as one d × (E·K') matrix, the update rows
 * as one d × (U+1) matrix (its last column zero: the move that pads every segment to the longest
 * one's length), each update's direction over the K' score rows, and per segment the indices of
 * its updates and the vote weights of its vectors (start first).
 */
final class VoteLayout {
  final int numStarts;
  final int numSegments;
  final int numUpdates;
  final int maxUpdates;
  final double[] startCoefficients;
  final double[] startIntercepts;
  final long[] segmentStart;
  final double[] updateRows;
  final double[] updateDirections;
  final long[] segmentUpdates;
  final double[] voteWeights;

  private VoteLayout(VotedPerceptron vote) {
    int d = vote.numFeatures();
    int rows = vote.numClasses() == 2 ? 1 : vote.numClasses();
    double[][] starts = vote.startVectors();
    numStarts = starts.length;
    startCoefficients = new double[Math.multiplyExact(d, numStarts * rows)];
    startIntercepts = new double[numStarts * rows];
    int width = numStarts * rows;
    for (int e = 0; e < numStarts; e++) {
      for (int k = 0; k < rows; k++) {
        int column = e * rows + k;
        for (int j = 0; j < d; j++) {
          startCoefficients[j * width + column] = starts[e][k * (d + 1) + j];
        }
        startIntercepts[column] = starts[e][k * (d + 1) + d];
      }
    }

    int[] first = vote.segmentFirstUpdates();
    numSegments = vote.numSegments();
    numUpdates = vote.updateRaised().length;
    maxUpdates = maxUpdates(vote);
    segmentStart = new long[numSegments];
    for (int s = 0; s < numSegments; s++) {
      segmentStart[s] = vote.segmentStartVectors()[s];
    }

    int columns = numUpdates + 1;
    updateRows = new double[Math.multiplyExact(d, columns)];
    int[] rowStart = vote.updateRowStarts();
    int[] indices = vote.updateIndices();
    double[] values = vote.updateValues();
    for (int u = 0; u < numUpdates; u++) {
      for (int t = rowStart[u]; t < rowStart[u + 1]; t++) {
        updateRows[indices[t] * columns + u] = values[t];
      }
    }
    updateDirections = new double[columns * rows];
    double[] delta = vote.updateDeltas();
    for (int u = 0; u < numUpdates; u++) {
      if (rows == 1) {
        updateDirections[u] = delta[u];
      } else {
        updateDirections[u * rows + vote.updateRaised()[u]] = delta[u];
        updateDirections[u * rows + vote.updateLowered()[u]] = -delta[u];
      }
    }

    segmentUpdates = new long[numSegments * maxUpdates];
    voteWeights = new double[numSegments * (maxUpdates + 1)];
    for (int s = 0; s < numSegments; s++) {
      voteWeights[s * (maxUpdates + 1)] = vote.segmentStartWeights()[s];
      for (int j = 0; j < maxUpdates; j++) {
        int u = first[s] + j;
        boolean real = u < first[s + 1];
        segmentUpdates[s * maxUpdates + j] = real ? u : numUpdates;
        voteWeights[s * (maxUpdates + 1) + 1 + j] = real ? vote.updateWeights()[u] : 0.0;
      }
    }
  }

  static VoteLayout of(VotedPerceptron vote) {
    return new VoteLayout(vote);
  }

  /** The number of values (doubles and int64s, 8 bytes each) the layout holds, computed alone. */
  static long values(VotedPerceptron vote) {
    long d = vote.numFeatures();
    long rows = vote.numClasses() == 2 ? 1 : vote.numClasses();
    long starts = vote.startVectors().length;
    long updates = vote.updateRaised().length;
    long segments = vote.numSegments();
    long longest = maxUpdates(vote);
    return starts * rows * (d + 1) + (updates + 1) * (d + rows) + segments
        + segments * longest + segments * (longest + 1);
  }

  private static int maxUpdates(VotedPerceptron vote) {
    int[] first = vote.segmentFirstUpdates();
    int most = 0;
    for (int s = 0; s < vote.numSegments(); s++) {
      most = Math.max(most, first[s + 1] - first[s]);
    }
    return most;
  }
}
