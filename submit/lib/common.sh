# Shared by the submit/ scripts: where things are, and building the job jar on first use.
# Sourced, not run.

SP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The job jar: the library plus the jobs' own libraries (picocli, JFreeChart), one jar for
# spark-submit. target/spark-perceptron.jar beside it is the library alone.
SP_JAR="$SP_ROOT/target/spark-perceptron-jobs.jar"
SP_CLASSPATH_FILE="$SP_ROOT/target/classpath.txt"
SP_CONF_DIR=${SPARK_PERCEPTRON_CONF_DIR:-$SP_ROOT/conf}

# The JVM flags Spark's own launcher adds on Java 17 (one per line in java-options).
sp_java_options() {
  grep -v '^[[:space:]]*\(#\|$\)' "$SP_ROOT/submit/lib/java-options"
}

# Builds target/spark-perceptron-jobs.jar and target/classpath.txt when missing or older than the
# sources. The first build downloads Spark and its dependencies (about 415 MB) into ~/.m2.
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

# -Dmaven.test.skip=true: the package phase needs nothing from the tests (no test-jar, the shade
# and classpath executions read main classes and dependencies only), so the tests are neither
# compiled nor run, and their libraries are not even downloaded (pom.xml, profile test-libraries):
# a user's first run waits for the library alone.
sp_build() {
  sp_maven "spark-perceptron" -Dmaven.test.skip=true package
  sp_cds_dump
}

# sp_maven WHAT MAVEN_ARGS... : runs Maven in the project root, saying what it builds and showing
# its progress (downloads, compiling, packaging) rather than either Maven's thousands of lines or
# two silent minutes on the first run; the full output goes to target/build.log, whose last lines
# are shown if the build fails. Every script that builds goes through here.
sp_maven() {
  local what=$1
  shift
  if ! command -v mvn >/dev/null 2>&1; then
    echo "spark-perceptron: Maven (mvn) is needed to build $what; install it or run 'mvn package' elsewhere" >&2
    exit 1
  fi
  local log="$SP_ROOT/target/build.log"
  mkdir -p "$SP_ROOT/target"
  echo "Building $what with Maven (mvn -B $*)..." >&2
  if [[ ! -d "${HOME}/.m2/repository/org/apache/spark" ]]; then
    echo "  the first build downloads Spark and its dependencies (about 415 MB) into ~/.m2: a few minutes; later builds take seconds" >&2
  fi
  local start=$SECONDS
  if ! (cd "$SP_ROOT" && set -o pipefail && mvn -B "$@" 2>&1 | sp_without_colour \
      | "$SP_ROOT/submit/lib/maven-progress" "$log.tmp"); then
    mv -f "$log.tmp" "$log"
    echo "spark-perceptron: the build failed; its last lines (all of them are in $log):" >&2
    grep -v '^\[INFO\] *$' "$log" | tail -n 25 >&2
    exit 1
  fi
  mv -f "$log.tmp" "$log"
  echo "Built $what in $((SECONDS - start)) s" >&2
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
      # Copied aside, then renamed: a script started at the same moment (the tests run two at a
      # time) sees no file or the whole file, never half of one.
      mkdir -p "$SP_ROOT/target"
      cp "$SP_ROOT/conf/log4j2.properties.template" "$copy.$$"
      mv -f "$copy.$$" "$copy"
    fi
    echo "$copy"
  fi
}


# The job JVM's class path: the jars first, conf/ (resources only: core-site.xml and the like)
# last. The class-data archive is written with the jars alone (sp_cds_jars), and a JVM maps an
# archive whose class path is a prefix of its own, so one archive serves every conf directory.
sp_job_classpath() {
  echo "$(sp_cds_jars):$SP_CONF_DIR"
}

# The jars of the job JVM's class path: what the class-data archive is written with.
sp_cds_jars() {
  cat "$SP_CLASSPATH_FILE"
}

# sp_cds_archive: the jobs' class-data archive for these jars and this job jar (their names, the
# jar's size and time: a rebuilt jar or another dependency list gives another name).
sp_cds_archive() {
  local key
  key=$( { sp_cds_jars; stat -c '%n %s %Y' "$SP_JAR"; } | cksum | cut -d' ' -f1)
  echo "$SP_ROOT/target/cds/jobs-$key.jsa"
}

# Application class-data sharing (JEP 350), on unless SP_CDS=0: one quick start run (the
# breast-cancer sample, output thrown away) writes the classes its JVM loaded, Spark's included,
# already parsed and verified, to target/cds/ (about 160 MB); every job then maps them instead of
# loading them again (the quick start: 8 s instead of 14, BENCHMARKS "Issue 20"). The scripts' build
# runs it after packaging, and a job runs it first when the jar it runs has no archive yet: the jar
# was rebuilt by Maven itself (mvn package, mvn install), which the archive's name tells. Writing
# one removes those of earlier jars (160 MB each, of no use any more). A failed dump leaves no
# archive, a mark that stops later jobs from trying again for the same jar (delete target/cds/ to
# try again), and target/cds/dump.log; the jobs then start as without one. One writer at a time: a job that finds another writing
# (target/cds/writing) starts without the archive.
sp_cds_dump() {
  [[ "${SP_CDS:-1}" == 0 ]] && return 0
  local archive failed lock scratch start=$SECONDS
  archive=$(sp_cds_archive)
  failed="${archive%.jsa}.failed"
  [[ -f "$archive" || -f "$failed" ]] && return 0
  mkdir -p "$SP_ROOT/target/cds"
  lock="$SP_ROOT/target/cds/writing"
  # A lock older than 30 minutes was left by a writer that was killed: a dump takes one or two.
  if [[ -d "$lock" && -n "$(find "$lock" -maxdepth 0 -mmin +30 -print)" ]]; then
    rmdir "$lock" 2>/dev/null || true
  fi
  mkdir "$lock" 2>/dev/null || return 0
  rm -f "$SP_ROOT"/target/cds/jobs-*.jsa "$SP_ROOT"/target/cds/jobs-*.failed
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/sp-cds.XXXXXX")
  # Interrupted (Ctrl-C): no half-written archive, no lock left behind.
  trap 'rm -rf "$scratch"; rmdir "$lock" 2>/dev/null; exit 130' INT TERM
  echo "Writing the jobs' class-data archive for this build of the jar (once per build: faster" \
    "JVM start-up; SP_CDS=0 skips it)..." >&2
  local java_opts=()
  while IFS= read -r flag; do
    java_opts+=("$flag")
  done < <(sp_java_options)
  if SPARK_LOCAL_IP=127.0.0.1 java "${java_opts[@]}" -Xmx2g -Xshare:auto \
      "-XX:ArchiveClassesAtExit=$scratch/jobs.jsa" '-Xlog:cds*=off' \
      "-Dlog4j2.configurationFile=file:$(sp_log4j_config)" -cp "$(sp_cds_jars)" \
      org.apache.spark.deploy.SparkSubmit --master 'local[2]' \
      --class io.github.sparkperceptron.jobs.TrainJob "$SP_JAR" \
      --train "$SP_ROOT/data-samples/breast_cancer/train.libsvm" \
      --test "$SP_ROOT/data-samples/breast_cancer/test.libsvm" \
      --model "$scratch/model" --metrics "$scratch/metrics.json" \
      >"$SP_ROOT/target/cds/dump.log" 2>&1 && [[ -s "$scratch/jobs.jsa" ]]; then
    mv -f "$scratch/jobs.jsa" "$archive"
    echo "Wrote it in $((SECONDS - start)) s" >&2
  else
    : > "$failed"
    echo "  (not written: the jobs start without it; see target/cds/dump.log)" >&2
  fi
  rm -rf "$scratch"
  rmdir "$lock" 2>/dev/null || true
  trap - INT TERM
}
