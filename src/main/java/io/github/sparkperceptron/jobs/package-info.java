/**
 * The spark-submit jobs ({@code submit/train}, ...): thin command-line front ends over the
 * library, with picocli options, one-line errors and the exit codes 0 (success), 2 (bad usage or
 * bad input) and 1 (any other failure).
 */
package io.github.sparkperceptron.jobs;
