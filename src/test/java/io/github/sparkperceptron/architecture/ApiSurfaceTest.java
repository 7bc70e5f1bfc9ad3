package io.github.sparkperceptron.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sparkperceptron.ml.PerceptronClassificationModel;
import io.github.sparkperceptron.ml.PerceptronClassifier;
import io.github.sparkperceptron.testing.TestData;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.spark.ml.util.MLFormatRegister;
import org.junit.jupiter.api.Test;

/**
 * The public API is a decision, written down: every public type outside the {@code internal}
 * packages is listed in the README's "API and compatibility" section, every listed type is public,
 * none of their public or protected members names an internal type, and the committed API
 * baseline ({@code api-baseline/}, which {@code mvn verify} compares the jar with) holds every
 * listed type, so that removing one later fails the compatibility check.
 */
class ApiSurfaceTest {
  private static final String ROOT = "io.github.sparkperceptron.";
  private static final String INTERNAL = ROOT + "internal.";
  private static final Path README = TestData.projectRoot().resolve("README.md");
  static final Path BASELINE = TestData.projectRoot()
      .resolve("api-baseline/spark-perceptron-api.jar");

  /**
   * A row of the README's API table: a package in backticks (the root package or one below it),
   * then its types in backticks.
   */
  private static final Pattern ROW = Pattern.compile(
      "^\\| `(io\\.github\\.sparkperceptron(?:\\.[a-z.]+)?)` \\|(.*)\\|\\s*$",
      Pattern.MULTILINE);
  private static final Pattern NAME = Pattern.compile("`([A-Z][\\w.]*)`");

  /** The README's API list, as binary class names (nested types with {@code $}). */
  static Set<String> documentedApi() throws IOException {
    String readme = Files.readString(README);
    int start = readme.indexOf("\n## API and compatibility\n");
    assertTrue(start >= 0, "README.md has no section '## API and compatibility'");
    int end = readme.indexOf("\n## ", start + 1);
    String section = readme.substring(start, end < 0 ? readme.length() : end);
    Set<String> names = new TreeSet<>();
    Matcher row = ROW.matcher(section);
    while (row.find()) {
      Matcher name = NAME.matcher(row.group(2));
      while (name.find()) {
        names.add(row.group(1) + "." + name.group(1).replace('.', '$'));
      }
    }
    return names;
  }

  /** Every class compiled from src/main/java and the generated sources, by binary name. */
  private static List<String> mainClasses() throws IOException, URISyntaxException {
    Path classes = Path.of(PerceptronClassifier.class.getProtectionDomain().getCodeSource()
        .getLocation().toURI());
    List<String> names = new ArrayList<>();
    if (Files.isDirectory(classes)) {
      try (Stream<Path> files = Files.walk(classes)) {
        files.filter(f -> f.toString().endsWith(".class")).forEach(f -> names.add(
            binaryName(classes.relativize(f).toString().replace('\\', '/'))));
      }
    } else {
      try (JarFile jar = new JarFile(classes.toFile())) {
        for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
          String entry = e.nextElement().getName();
          if (entry.startsWith(ROOT.replace('.', '/')) && entry.endsWith(".class")) {
            names.add(binaryName(entry));
          }
        }
      }
    }
    return names;
  }

  private static String binaryName(String classFile) {
    return classFile.substring(0, classFile.length() - ".class".length()).replace('/', '.');
  }

  /**
   * Public (a nested type: public or protected), and so are the types around it: what code
   * outside the package can name.
   */
  private static boolean visible(Class<?> c) {
    for (Class<?> t = c; t != null; t = t.getEnclosingClass()) {
      int mod = t.getModifiers();
      boolean open = Modifier.isPublic(mod)
          || (t.getEnclosingClass() != null && Modifier.isProtected(mod));
      if (!open || t.isAnonymousClass() || t.isLocalClass()) {
        return false;
      }
    }
    return true;
  }

  /** The public types outside the internal packages (and the shaded libraries). */
  static Set<String> publicApi() throws Exception {
    Set<String> api = new TreeSet<>();
    for (String name : mainClasses()) {
      if (!name.startsWith(ROOT) || name.startsWith(INTERNAL)
          || name.startsWith(ROOT + "shaded.") || name.endsWith(".package-info")) {
        continue;
      }
      Class<?> c = Class.forName(name, false, ApiSurfaceTest.class.getClassLoader());
      if (visible(c)) {
        api.add(name);
      }
    }
    return api;
  }

  @Test
  void everyPublicTypeOutsideTheInternalPackagesIsTheDocumentedApi() throws Exception {
    Set<String> documented = documentedApi();
    assertTrue(documented.size() >= 10, "the README's API table lists " + documented);
    Set<String> undocumented = new TreeSet<>(publicApi());
    undocumented.removeAll(documented);
    assertEquals(Set.of(), undocumented, "public types outside " + INTERNAL + "* that the"
        + " README's list ('API and compatibility') lacks: make each package-private, move it"
        + " under internal, or list it (a decision: it is then an API that the compatibility"
        + " check holds to)");
    Set<String> notPublic = new TreeSet<>(documented);
    notPublic.removeAll(publicApi());
    assertEquals(Set.of(), notPublic, "types the README lists as API that are not public types");
  }

  @Test
  void noPublicMemberOfTheApiNamesAnInternalType() throws Exception {
    List<String> leaks = new ArrayList<>();
    for (String name : publicApi()) {
      Class<?> c = Class.forName(name, false, ApiSurfaceTest.class.getClassLoader());
      List<Type> types = new ArrayList<>();
      types.add(c.getGenericSuperclass());
      types.addAll(List.of(c.getGenericInterfaces()));
      for (Method m : c.getDeclaredMethods()) {
        if (exposed(m)) {
          types.add(m.getGenericReturnType());
          types.addAll(List.of(m.getGenericParameterTypes()));
          types.addAll(List.of(m.getGenericExceptionTypes()));
        }
      }
      for (Constructor<?> k : c.getDeclaredConstructors()) {
        if (exposed(k)) {
          types.addAll(List.of(k.getGenericParameterTypes()));
        }
      }
      for (Field f : c.getDeclaredFields()) {
        if (exposed(f)) {
          types.add(f.getGenericType());
        }
      }
      for (Type t : types) {
        if (t != null && t.getTypeName().contains(INTERNAL)) {
          leaks.add(name + ": " + t.getTypeName());
        }
      }
    }
    assertTrue(leaks.isEmpty(), "the API names internal types (lend them through an"
        + " internal bridge instead):\n" + String.join("\n", leaks));
  }

  private static boolean exposed(Member m) {
    int mod = m.getModifiers();
    return !m.isSynthetic() && (Modifier.isPublic(mod) || Modifier.isProtected(mod));
  }

  @Test
  void theCommittedBaselineHoldsEveryDocumentedType() throws IOException {
    assertTrue(Files.isRegularFile(BASELINE), BASELINE + " is missing: see the README, 'API and"
        + " compatibility', for the command that writes it");
    Set<String> inBaseline = new TreeSet<>();
    try (JarFile jar = new JarFile(BASELINE.toFile())) {
      for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
        String entry = e.nextElement().getName();
        if (entry.endsWith(".class")) {
          inBaseline.add(binaryName(entry));
        }
      }
    }
    Set<String> missing = new TreeSet<>(documentedApi());
    missing.removeAll(inBaseline);
    assertTrue(missing.isEmpty(), "API types missing from " + BASELINE.getFileName() + ", so the"
        + " compatibility check cannot hold them: " + missing + "; write the baseline again"
        + " (README, 'API and compatibility')");
    for (String name : inBaseline) {
      assertTrue(!name.startsWith(INTERNAL), "the baseline holds an internal class: " + name);
    }
  }

  /**
   * Spark finds the model's formats with {@link ServiceLoader}, which instantiates every provider
   * that META-INF/services names (a stale name, e.g. of a class moved under internal, fails every
   * look-up, the "onnx" format's included): both providers load and write the model's formats.
   */
  @Test
  void theModelFormatProvidersLoadWhereTheyLive() {
    Map<String, String> formats = new TreeMap<>();
    for (MLFormatRegister format : ServiceLoader.load(MLFormatRegister.class,
        ApiSurfaceTest.class.getClassLoader())) {
      if (format.getClass().getName().startsWith(ROOT)) {
        formats.put(format.format(), format.stageName());
      }
    }
    String model = PerceptronClassificationModel.class.getName();
    assertEquals(Map.of("internal", model, "onnx", model), formats);
  }
}
