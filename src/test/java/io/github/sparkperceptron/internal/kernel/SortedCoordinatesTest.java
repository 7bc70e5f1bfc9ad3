package io.github.sparkperceptron.internal.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Arrays;
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

  /**
   * A large set against a few coordinates, both ways round: the sizes where union and its size
   * gallop through the large one instead of merging (a support of millions against a round's
   * mix), including coordinates before, between and after the large set's and ones it holds.
   */
  @Test
  void aFewCoordinatesAgainstALargeSetGiveTheSetUnionToo() {
    Random random = new Random(11);
    for (int trial = 0; trial < 200; trial++) {
      int range = 1_000 + random.nextInt(20_000);
      int[] large = IntStream.range(0, range).filter(j -> random.nextInt(4) != 0).toArray();
      int few = random.nextInt(40);
      int[] small = random.ints(few, -5, range + 5).filter(j -> j >= 0).distinct().sorted()
          .toArray();
      TreeSet<Integer> expected = new TreeSet<>();
      IntStream.of(large).forEach(expected::add);
      IntStream.of(small).forEach(expected::add);
      int[] union = expected.stream().mapToInt(Integer::intValue).toArray();
      assertArrayEquals(union, SortedCoordinates.union(large, small));
      assertArrayEquals(union, SortedCoordinates.union(small, large));
      assertEquals(union.length, SortedCoordinates.unionSize(large, small));
      assertEquals(union.length, SortedCoordinates.unionSize(small, large));
      int[] held = IntStream.of(small).filter(j -> Arrays.binarySearch(large, j) >= 0)
          .toArray();
      assertSame(large, SortedCoordinates.union(large, held), "a itself when b adds nothing");
    }
  }

  /** The galloping search answers as a binary search from every start below the key's place. */
  @Test
  void theGallopingSearchIsABinarySearchFromItsStart() {
    int[] a = IntStream.range(0, 3_000).map(j -> 3 * j + 1).toArray();
    for (int key = -2; key < 9_010; key += 7) {
      int expected = Arrays.binarySearch(a, key);
      int place = expected >= 0 ? expected : -expected - 1;
      for (int from : new int[] {0, place / 3, Math.max(0, place - 1), place}) {
        assertEquals(expected, SortedCoordinates.search(a, from, key), key + " from " + from);
      }
    }
  }

  private static int[] randomSet(Random random, int range) {
    double p = random.nextDouble();
    return IntStream.range(0, range).filter(j -> random.nextDouble() < p)
        .toArray();
  }
}
