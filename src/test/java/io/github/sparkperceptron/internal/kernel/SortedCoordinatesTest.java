package io.github.sparkperceptron.internal.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Random;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The sorted-array union against a {@link TreeSet}'s, on random sets of every overlap. */
class SortedCoordinatesTest {
  @Test
  void unionAndItsSizeAreTheSetUnion() {
    Random random = new Random(7);
    for (int trial = 0; trial < 2_000; trial++) {
      int range = 1 + random.nextInt(200);
      int[] a = randomSet(random, range);
      int[] b = randomSet(random, range);
      TreeSet<Integer> expected = new TreeSet<>();
      for (int j : a) {
        expected.add(j);
      }
      for (int j : b) {
        expected.add(j);
      }
      int[] union = SortedCoordinates.union(a, b);
      assertArrayEquals(expected.stream().mapToInt(Integer::intValue).toArray(), union);
      assertEquals(expected.size(), SortedCoordinates.unionSize(a, b));
      if (expected.size() == a.length) {
        assertSame(a, union, "a itself when b adds nothing");
      }
    }
  }

  private static int[] randomSet(Random random, int range) {
    double p = random.nextDouble();
    return IntStream.range(0, range).filter(j -> random.nextDouble() < p)
        .toArray();
  }
}
