package io.github.sparkperceptron.internal.drift;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The state round trip, batch feeding and the factory. */
class DriftDetectorStateTest {

  private static double[] rising(long seed, int rows) {
    SplittableRandom random = new SplittableRandom(seed);
    double[] x = new double[rows];
    for (int t = 0; t < rows; t++) {
      double rate = t < rows / 2 ? 0.2 : 0.5;
      x[t] = random.nextDouble() < rate ? 1 : 0;
    }
    return x;
  }

  /**
   * A detector decoded mid-stream continues bit for bit as the original: the same detections at
   * the same rows, and the same state at the end (compared as raw bits).
   */
  @Test
  void aDecodedDetectorContinuesBitForBit() {
    double[] x = rising(3, 60_000);
    for (String name : new String[] {"page-hinkley", "adwin"}) {
      for (int cutAt : new int[] {0, 1, 29_999, 30_017, 45_001}) {
        DriftDetector original = DriftDetectors.create(name);
        for (int t = 0; t < cutAt; t++) {
          original.add(x[t]);
        }
        DriftDetector resumed = DriftDetectors.decode(original.encode());
        assertArrayEquals(original.encode(), resumed.encode(), name + " at " + cutAt);
        for (int t = cutAt; t < x.length; t++) {
          assertEquals(original.add(x[t]), resumed.add(x[t]), name + " row " + t);
        }
        double[] a = original.encode();
        double[] b = resumed.encode();
        assertEquals(a.length, b.length);
        for (int i = 0; i < a.length; i++) {
          assertEquals(Double.doubleToRawLongBits(a[i]), Double.doubleToRawLongBits(b[i]),
              name + " value " + i);
        }
        assertTrue(original.detections() > 0, name + " must detect the rise");
        assertEquals(original.lastDetectionRow(), resumed.lastDetectionRow());
      }
    }
  }

  @Test
  void adwinsStateIsLogarithmicInItsWindow() {
    DriftDetector adwin = DriftDetectors.create("adwin");
    for (int t = 0; t < 1 << 20; t++) {
      adwin.add((t & 3) == 0 ? 1 : 0);
    }
    // 15 header values + per size up to 2^20: a count and at most 5 (sum, square) pairs.
    assertTrue(adwin.encode().length <= 15 + 21 * 11, adwin.encode().length + " values");
  }

  @Test
  void aBatchIsFedAsRowsWithItsMistakesSpreadEvenly() {
    List<Double> fed = new ArrayList<>();
    DriftDetector recorder = new DriftDetector() {
      @Override
      public String name() {
        return "recorder";
      }

      @Override
      public boolean add(double error) {
        fed.add(error);
        return fed.size() % 4 == 0;
      }

      @Override
      public long rows() {
        return fed.size();
      }

      @Override
      public long detections() {
        return 0;
      }

      @Override
      public long lastDetectionRow() {
        return -1;
      }

      @Override
      public double errorRate() {
        return 0;
      }

      @Override
      public double[] encode() {
        return new double[0];
      }
    };
    // 10 rows, 4 mistakes: after i rows, ⌊4i/10⌋ mistakes: rows 3, 5, 8 and 10 (1-based).
    assertEquals(2, recorder.addBatch(10, 4), "detections at the 4th and 8th row");
    assertEquals(Arrays.asList(0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0), fed);
    for (long[] batch : new long[][] {{7, 0}, {7, 7}, {50_000, 16_667}, {3, 1}}) {
      fed.clear();
      recorder.addBatch(batch[0], batch[1]);
      assertEquals(batch[0], fed.size());
      double mistakes = 0;
      for (int i = 0; i < fed.size(); i++) {
        mistakes += fed.get(i);
        assertEquals(Math.floorDiv((i + 1) * batch[1], batch[0]), (long) mistakes,
            "after " + (i + 1) + " rows of " + Arrays.toString(batch));
      }
    }
    assertThrows(IllegalArgumentException.class, () -> recorder.addBatch(5, 6));
    assertThrows(IllegalArgumentException.class, () -> recorder.addBatch(-1, 0));
  }

  @Test
  void aBatchGivesTheSameDetectionsAsItsRowsOneByOne() {
    DriftDetector batched = DriftDetectors.create("adwin");
    DriftDetector rowByRow = DriftDetectors.create("adwin");
    long[][] batches = {{50_000, 25_000}, {50_000, 20_000}, {50_000, 17_000}, {50_000, 26_000}};
    for (long[] b : batches) {
      int found = batched.addBatch(b[0], b[1]);
      long carried = 0;
      int one = 0;
      for (long i = 0; i < b[0]; i++) {
        carried += b[1];
        boolean mistake = carried >= b[0];
        carried -= mistake ? b[0] : 0;
        one += rowByRow.add(mistake ? 1 : 0) ? 1 : 0;
      }
      assertEquals(one, found);
    }
    assertArrayEquals(rowByRow.encode(), batched.encode());
    assertTrue(batched.detections() > 0, "0.34 -> 0.52 is a rise");
  }

  @Test
  void theFactoryKnowsTheParamValuesAndRefusesOthers() {
    assertNull(DriftDetectors.create("none"));
    assertEquals("page-hinkley", DriftDetectors.create("Page-Hinkley").name());
    assertEquals("adwin", DriftDetectors.create(" ADWIN ").name());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DriftDetectors.create("ddm"));
    assertTrue(e.getMessage().contains("none, page-hinkley, adwin"), e.getMessage());
  }

  @Test
  void garbageIsNotDecoded() {
    assertThrows(IllegalArgumentException.class, () -> DriftDetectors.decode(new double[0]));
    assertThrows(IllegalArgumentException.class,
        () -> DriftDetectors.decode(new double[] {3, 1}));
    double[] ph = DriftDetectors.create("page-hinkley").encode();
    assertThrows(IllegalArgumentException.class,
        () -> DriftDetectors.decode(Arrays.copyOf(ph, ph.length - 1)));
    DriftDetector adwin = DriftDetectors.create("adwin");
    for (int t = 0; t < 1000; t++) {
      adwin.add(t % 3 == 0 ? 1 : 0);
    }
    double[] a = adwin.encode();
    assertThrows(IllegalArgumentException.class,
        () -> DriftDetectors.decode(Arrays.copyOf(a, a.length - 2)));
    double[] wrongWidth = a.clone();
    wrongWidth[8] += 1;
    assertThrows(IllegalArgumentException.class, () -> DriftDetectors.decode(wrongWidth));
    double[] fractional = a.clone();
    fractional[7] += 0.5;
    assertThrows(IllegalArgumentException.class, () -> DriftDetectors.decode(fractional));
  }
}
