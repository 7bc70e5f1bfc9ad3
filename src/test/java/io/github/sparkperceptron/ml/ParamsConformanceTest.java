package io.github.sparkperceptron.ml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.internal.calibration.CalibrationMethod;
import io.github.sparkperceptron.internal.kernel.Averaging;
import io.github.sparkperceptron.internal.kernel.ClassWeight;
import io.github.sparkperceptron.internal.kernel.ParamValue;
import io.github.sparkperceptron.internal.kernel.ShuffleScope;
import io.github.sparkperceptron.internal.kernel.UpdateRule;
import io.github.sparkperceptron.internal.mixing.MixingMode;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.Params;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The params of the estimator and the model follow Spark ML's conventions, in the spirit of
 * Spark's own {@code ParamsSuite.checkParams}: params listed by name and owned by the instance,
 * each with a doc and a default (or declared optional), a getter that answers on a fresh
 * instance, setters where Spark has them, and {@code copy} / {@code explainParams} that keep and
 * show every value. No SparkSession is needed: params are plain objects.
 */
class ParamsConformanceTest {

  private static final double[] THRESHOLDS = {0.4, 0.6};

  /**
   * A valid value other than the default for every param. The test fails when a param is added
   * without a value here, so a new param cannot skip these checks.
   */
  private static final Map<String, Object> SAMPLE = Map.ofEntries(
      Map.entry("aggregationDepth", 3),
      Map.entry("aggressiveness", 0.5),
      Map.entry("averaging", "vote"),
      Map.entry("calibration", "isotonic"),
      Map.entry("calibrationFolds", 3),
      Map.entry("checkpointDir", "/tmp/checkpoints"),
      Map.entry("checkpointInterval", 3),
      Map.entry("classWeight", "balanced"),
      Map.entry("featuresCol", "x"),
      Map.entry("fitIntercept", false),
      Map.entry("labelCol", "y"),
      Map.entry("maxIter", 7),
      Map.entry("mixing", "oneshot"),
      Map.entry("mixingRounds", 4),
      Map.entry("numWorkers", 3),
      Map.entry("predictionCol", "p"),
      Map.entry("probabilityCol", "prob"),
      Map.entry("rawPredictionCol", "r"),
      Map.entry("seed", 7L),
      Map.entry("shuffle", false),
      Map.entry("shuffleScope", "chunks"),
      Map.entry("stepSize", 0.25),
      Map.entry("storageLevel", "DISK_ONLY"),
      Map.entry("threshold", 0.5),
      Map.entry("thresholds", THRESHOLDS),
      Map.entry("tol", 0.5),
      Map.entry("updateRule", "pa2"),
      Map.entry("validationIndicatorCol", "isValidation"),
      Map.entry("validationPatience", 5),
      Map.entry("weightCol", "w"));

  /** Params without a default: unset means "not used", and their getters answer "". */
  private static final Set<String> OPTIONAL =
      Set.of("checkpointDir", "validationIndicatorCol", "weightCol");

  /**
   * Spark's own params without a default whose getter fails while unset, as in Spark's own
   * probabilistic classifiers (HasThresholds): unset means Spark's rule is not used.
   */
  private static final Set<String> SPARK_OPTIONAL = Set.of("thresholds");

  /** What a model lets the user change, as Spark's models do; every other param is read-only. */
  private static final Set<String> MODEL_SETTERS = Set.of("featuresCol", "predictionCol",
      "rawPredictionCol", "threshold", "probabilityCol", "thresholds");

  private static PerceptronClassificationModel model() {
    return new PerceptronClassificationModel("perceptron_model_test", 2, 3,
        new double[] {1, -2, 0.5}, new double[] {0.25}, null);
  }

  static Stream<Params> instances() {
    return Stream.of(new PerceptronClassifier(), model());
  }

  private static String capitalized(String name) {
    return Character.toUpperCase(name.charAt(0)) + name.substring(1);
  }

  private static Object invoke(Method m, Object target, Object... args) {
    try {
      return m.invoke(target, args);
    } catch (IllegalAccessException e) {
      throw new AssertionError(m + " is not accessible", e);
    } catch (InvocationTargetException e) {
      throw new AssertionError(m + " threw " + e.getCause(), e.getCause());
    }
  }

  /** The public one-argument method {@code setX} of {@code type}, or null. */
  private static Method setter(Class<?> type, String param) {
    for (Method m : type.getMethods()) {
      if (m.getName().equals("set" + capitalized(param)) && m.getParameterCount() == 1
          && !m.isBridge()) {
        return m;
      }
    }
    return null;
  }

  private static Method getter(Class<?> type, String param) {
    try {
      Method m = type.getMethod("get" + capitalized(param));
      assertTrue(Modifier.isPublic(m.getModifiers()), m.toString());
      return m;
    } catch (NoSuchMethodException e) {
      throw new AssertionError(type.getSimpleName() + " has no getter get" + capitalized(param));
    }
  }

  @SuppressWarnings("unchecked")
  private static void setAny(Params obj, Param<?> p, Object value) {
    obj.set((Param<Object>) p, value);
  }

  @ParameterizedTest
  @MethodSource("instances")
  void paramsAreSortedByNameOwnedByTheInstanceAndFoundByName(Params obj) throws Exception {
    Param<?>[] params = obj.params();
    List<String> names = new ArrayList<>();
    for (Param<?> p : params) {
      names.add(p.name());
    }
    assertEquals(new ArrayList<>(new TreeSet<>(names)), names, "params() ordered by name");
    assertEquals(SAMPLE.keySet(), new TreeSet<>(names),
        "every param needs a sample value in this test, and every sample a param");
    for (Param<?> p : params) {
      assertEquals(obj.uid(), p.parent(), p.name() + "'s parent");
      assertSame(p, obj.getParam(p.name()));
      // Spark finds params as the public no-argument methods named like them
      assertSame(p, obj.getClass().getMethod(p.name()).invoke(obj), p.name() + "()");
    }
  }

  @ParameterizedTest
  @MethodSource("instances")
  void everyParamHasADocAndADefaultOrIsOptional(Params obj) {
    for (Param<?> p : obj.params()) {
      assertFalse(p.doc().isBlank(), p.name() + " has no doc");
      assertNotEquals(obj.hasDefault(p), OPTIONAL.contains(p.name())
          || SPARK_OPTIONAL.contains(p.name()), p.name() + ": a default, or declared optional");
      assertFalse(obj.isSet(p), p.name() + " is set on a fresh instance");
    }
  }

  @ParameterizedTest
  @MethodSource("instances")
  void gettersAnswerOnAFreshInstance(Params obj) {
    for (Param<?> p : obj.params()) {
      if (SPARK_OPTIONAL.contains(p.name())) {
        assertFalse(obj.isDefined(p), p.name());
        continue;
      }
      Object value = invoke(getter(obj.getClass(), p.name()), obj);
      Object expected = OPTIONAL.contains(p.name()) ? "" : obj.getOrDefault(p);
      assertEquals(expected, value, "get" + capitalized(p.name()));
    }
  }

  @Test
  void theEstimatorHasASetterForEveryParamThatTakesWhatItsGetterGives() {
    for (Param<?> p : new PerceptronClassifier().params()) {
      PerceptronClassifier fresh = new PerceptronClassifier();
      Method set = setter(PerceptronClassifier.class, p.name());
      assertTrue(set != null, "PerceptronClassifier has no set" + capitalized(p.name()));
      Method get = getter(PerceptronClassifier.class, p.name());
      if (!SPARK_OPTIONAL.contains(p.name())) {
        // setX(getX()) on a fresh instance, the optional ones included (Spark: "" means unset)
        assertSame(fresh, invoke(set, fresh, invoke(get, fresh)), p.name() + ": returns this");
        assertEquals(invoke(get, new PerceptronClassifier()), invoke(get, fresh), p.name());
      }
      invoke(set, fresh, SAMPLE.get(p.name()));
      assertEquals(SAMPLE.get(p.name()), invoke(get, fresh), p.name());
    }
  }

  @Test
  void theModelLetsOnlyItsOutputParamsBeSet() {
    PerceptronClassificationModel model = model();
    for (Param<?> p : model.params()) {
      Method set = setter(PerceptronClassificationModel.class, p.name());
      assertEquals(MODEL_SETTERS.contains(p.name()), set != null,
          "PerceptronClassificationModel.set" + capitalized(p.name()));
      if (set != null) {
        Method get = getter(PerceptronClassificationModel.class, p.name());
        assertSame(model, invoke(set, model, SPARK_OPTIONAL.contains(p.name())
            ? SAMPLE.get(p.name()) : invoke(get, model)), p.name() + ": returns this");
        invoke(set, model, SAMPLE.get(p.name()));
        assertEquals(SAMPLE.get(p.name()), invoke(get, model), p.name());
      }
    }
  }

  @ParameterizedTest
  @MethodSource("instances")
  void copyKeepsTheClassTheUidAndEveryValue(Params obj) throws Exception {
    // Spark's checkParams: copy(ParamMap) is declared to return the instance's own class
    assertEquals(obj.getClass(), obj.getClass().getMethod("copy", ParamMap.class)
        .getReturnType());
    for (Param<?> p : obj.params()) {
      setAny(obj, p, SAMPLE.get(p.name()));
    }
    Params copied = obj.copy(ParamMap.empty());
    assertEquals(obj.getClass(), copied.getClass());
    assertEquals(obj.uid(), copied.uid());
    for (Param<?> p : obj.params()) {
      Param<?> q = copied.getParam(p.name());
      assertEquals(copied.uid(), q.parent(), "the copy owns its params");
      assertTrue(copied.isSet(q), p.name());
      assertEquals(SAMPLE.get(p.name()), copied.getOrDefault(q), p.name());
    }

    @SuppressWarnings("unchecked")
    Param<Object> threshold = (Param<Object>) obj.getParam("threshold");
    Params overridden = obj.copy(new ParamMap().put(threshold, -1.5));
    assertEquals(-1.5, overridden.getOrDefault(overridden.getParam("threshold")));
    assertEquals(0.5, obj.getOrDefault(threshold), "copy(extra) leaves the original alone");
  }

  @ParameterizedTest
  @MethodSource("instances")
  void explainParamsShowsEveryParamWithItsDocAndValue(Params obj) {
    setAny(obj, obj.getParam("maxIter"), 7);
    String explained = obj.explainParams();
    for (Param<?> p : obj.params()) {
      assertTrue(explained.contains(p.name() + ": " + p.doc()), p.name() + " in\n" + explained);
    }
    assertTrue(explained.contains("(default: 10, current: 7)"), explained);
    assertTrue(explained.contains("weightCol: ") && explained.contains("(undefined)"), explained);
  }

  /** Each string param's doc, validator and message come from its enum's values. */
  @Test
  void stringParamsTakeTheirValuesFromTheEnums() {
    PerceptronClassifier clf = new PerceptronClassifier();
    Map<Param<String>, List<String>> allowed = Map.of(
        clf.updateRule(), ParamValue.names(UpdateRule.class),
        clf.averaging(), ParamValue.names(Averaging.class),
        clf.mixing(), ParamValue.names(MixingMode.class),
        clf.classWeight(), ParamValue.names(ClassWeight.class),
        clf.calibration(), ParamValue.names(CalibrationMethod.class),
        clf.shuffleScope(), ParamValue.names(ShuffleScope.class));
    assertEquals(List.of("perceptron", "pa", "pa1", "pa2"), allowed.get(clf.updateRule()));
    for (Map.Entry<Param<String>, List<String>> e : allowed.entrySet()) {
      Param<String> p = e.getKey();
      for (String value : e.getValue()) {
        assertTrue(p.doc().contains(value + " ("), p.name() + "'s doc lacks " + value);
        clf.set(p, value.toUpperCase(Locale.ROOT)); // case-insensitive, as Spark's
      }
      IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
          () -> clf.set(p, "nonsense"));
      assertEquals(p.name() + " must be one of " + e.getValue() + ", got 'nonsense'",
          bad.getMessage());
    }
    assertEquals(UpdateRule.PA2, clf.setUpdateRule("Pa2").updateRuleValue());
    assertEquals(ClassWeight.BALANCED, clf.setClassWeight("balanced").classWeightValue());
  }

  @Test
  void anEmptyStringUnsetsTheOptionalParams() {
    PerceptronClassifier clf = new PerceptronClassifier().setWeightCol("w")
        .setValidationIndicatorCol("v").setCheckpointDir("/tmp/c");
    clf.setWeightCol("").setValidationIndicatorCol("").setCheckpointDir("");
    assertEquals("", clf.getWeightCol());
    assertEquals("", clf.getValidationIndicatorCol());
    assertEquals("", clf.getCheckpointDir());
    // unset columns are not looked for: a schema without them passes
    StructType schema = new StructType()
        .add("label", DataTypes.DoubleType).add("features", SQLDataTypes.VectorType());
    assertTrue(Arrays.asList(clf.transformSchema(schema).fieldNames())
        .contains("prediction"));
    StructType missing = schema;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> clf.setWeightCol("w").transformSchema(missing));
    assertTrue(e.getMessage().contains("'w'"), e.getMessage());
  }

  /** As LinearSVC: ±Infinity are thresholds that never or always fire; NaN is refused. */
  @Test
  void thresholdsMayBeInfinite() {
    PerceptronClassificationModel model = model(); // margin = x1 - 2 x2 + 0.5 x3 + 0.25
    double[][] xs = {{0, 0, 0}, {-100, 0, 0}, {1e300, 0, 0}, {0, 1e300, 0}};
    for (double[] x : xs) {
      double margin = model.predictRaw(Vectors.dense(x)).apply(1);
      model.setThreshold(Double.POSITIVE_INFINITY);
      assertEquals(0.0, model.predict(Vectors.dense(x)), "margin " + margin);
      model.setThreshold(Double.NEGATIVE_INFINITY);
      assertEquals(1.0, model.predict(Vectors.dense(x)), "margin " + margin);
      assertEquals(1.0, model.raw2prediction(model.predictRaw(Vectors.dense(x))));
      model.setThreshold(0.0);
      assertEquals(margin > 0 ? 1.0 : 0.0, model.predict(Vectors.dense(x)), "margin " + margin);
    }
    assertEquals(Double.NEGATIVE_INFINITY,
        new PerceptronClassifier().setThreshold(Double.NEGATIVE_INFINITY).getThreshold());
    assertThrows(IllegalArgumentException.class, () -> model.setThreshold(Double.NaN));
  }
}
