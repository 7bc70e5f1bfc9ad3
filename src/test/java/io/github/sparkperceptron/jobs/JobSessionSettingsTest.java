package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sparkperceptron.internal.store.NioLocalFileSystem;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

/** What a job adds to spark-submit's settings: the process-free local file system, locally. */
class JobSessionSettingsTest {
  private static final String FS = "spark.hadoop.fs.file.impl";
  private static final String AFS = "spark.hadoop.fs.AbstractFileSystem.file.impl";

  @Test
  void aLocalMasterOrNoneGetsTheNioFileSystemForBothHadoopApis() {
    Map<String, String> expected = Map.of(
        FS, NioLocalFileSystem.class.getName(),
        AFS, "io.github.sparkperceptron.internal.store.NioLocalFs");
    assertEquals(expected, JobSupport.addedSettings(new SparkConf(false)));
    assertEquals(expected, JobSupport.addedSettings(new SparkConf(false).setMaster("local[2]")));
    assertEquals(expected, JobSupport.addedSettings(new SparkConf(false).setMaster("local")));
  }

  @Test
  void aClusterMasterKeepsHadoopsAndAUsersChoiceWins() {
    assertEquals(Map.of(),
        JobSupport.addedSettings(new SparkConf(false).setMaster("spark://127.0.0.1:7077")));
    assertEquals(Map.of(), JobSupport.addedSettings(new SparkConf(false).setMaster("yarn")));
    SparkConf own = new SparkConf(false).setMaster("local[*]")
        .set(FS, "org.apache.hadoop.fs.LocalFileSystem");
    assertEquals(Map.of(AFS, "io.github.sparkperceptron.internal.store.NioLocalFs"),
        JobSupport.addedSettings(own));
  }
}
