package io.github.sparkperceptron.jobs;

import io.github.sparkperceptron.ml.SparkPerceptronVersion;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What every job's {@code --version} prints: {@code spark-perceptron <job> <version>}, the
 * version as the build named it ({@link SparkPerceptronVersion}: {@code 0.1.0-SNAPSHOT} for a
 * snapshot, never a release number it is not). Picocli injects the command, so that one provider
 * names each job.
 */
final class JobVersion implements IVersionProvider {
  @Spec
  CommandSpec spec;

  @Override
  public String[] getVersion() {
    return new String[] {"spark-perceptron " + spec.name() + " " + SparkPerceptronVersion.VERSION};
  }
}
