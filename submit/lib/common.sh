# Shared by the submit/ scripts: where things are, and building the job jar on first use.
# Sourced, not run.

SP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SP_JAR="$SP_ROOT/target/spark-perceptron.jar"
SP_CLASSPATH_FILE="$SP_ROOT/target/classpath.txt"
SP_CONF_DIR=${SPARK_PERCEPTRON_CONF_DIR:-$SP_ROOT/conf}

# The JVM flags Spark's own launcher adds on Java 17 (one per line in java-options).
sp_java_options() {
  grep -v '^[[:space:]]*\(#\|$\)' "$SP_ROOT/submit/lib/java-options"
}

# Builds target/spark-perceptron.jar and target/classpath.txt when missing or older than the
# sources. The first build downloads Spark and its dependencies (about 400 MB) into ~/.m2.
sp_ensure_built() {
  if [[ ! -f "$SP_JAR" || ! -f "$SP_CLASSPATH_FILE" ]] ||
      [[ -n "$(find "$SP_ROOT/src/main" "$SP_ROOT/pom.xml" -newer "$SP_JAR" -print -quit)" ]]; then
    sp_build
  fi
}

# For what runs target/classes directly (the examples/ REPLs, the local cluster): builds when
# the compiled classes, target/classpath.txt or one of the files given are missing, or a source
# is newer than the classes. The tests call these scripts inside `mvn verify`, right after the
# build, so they never start a second Maven.
sp_ensure_classes() {
  local marker="$SP_ROOT/target/classes/io/github/sparkperceptron/ml/PerceptronClassifier.class"
  local f
  for f in "$marker" "$SP_CLASSPATH_FILE" "$@"; do
    if [[ ! -f "$f" ]]; then
      sp_build
      return
    fi
  done
  if [[ -n "$(find "$SP_ROOT/src/main" -newer "$marker" -print -quit)" ]]; then
    sp_build
  fi
}

sp_build() {
  if ! command -v mvn >/dev/null 2>&1; then
    echo "spark-perceptron: Maven (mvn) is needed to build the job jar; install it or run 'mvn package' elsewhere" >&2
    exit 1
  fi
  echo "Building spark-perceptron (mvn package; the first build downloads Spark, ~400 MB)..." >&2
  if ! (cd "$SP_ROOT" && set -o pipefail && mvn -q -B -DskipTests package 2>&1 \
      | sp_without_colour >&2); then
    echo "spark-perceptron: the build failed; see the Maven output above" >&2
    exit 1
  fi
}

# Maven 3.8 prints colour resets even in batch mode; keep them off the user's console.
sp_without_colour() {
  sed -u 's/\x1b\[[0-9;]*m//g'
}

# The log4j2 configuration: conf/log4j2.properties when the user made one, else a copy of the
# template under target/ (log4j2 chooses its parser by file extension, so .template will not do).
sp_log4j_config() {
  if [[ -f "$SP_CONF_DIR/log4j2.properties" ]]; then
    echo "$SP_CONF_DIR/log4j2.properties"
  else
    local copy="$SP_ROOT/target/log4j2-default.properties"
    if [[ ! -f "$copy" || "$SP_ROOT/conf/log4j2.properties.template" -nt "$copy" ]]; then
      cp "$SP_ROOT/conf/log4j2.properties.template" "$copy"
    fi
    echo "$copy"
  fi
}

