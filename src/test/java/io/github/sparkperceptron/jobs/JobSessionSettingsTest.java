package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sparkperceptron.internal.store.NioLocalFileSystem;
import io.github.sparkperceptron.internal.store.NioLocalFs;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

/** What a job adds to spark-submit's settings: the process-free local file system, locally. */
class JobSessionSettingsTest {
  private static final String FS = "spark.hadoop.fs.file.impl";
  private static final String AFS = "spark.hadoop.fs.AbstractFileSystem.file.impl";
  private static final Map<String, String> BOTH =
      Map.of(FS, NioLocalFileSystem.class.getName(), AFS, NioLocalFs.class.getName());

  /** Hadoop's configuration with its own defaults only (the tests' core-site.xml left out). */
  private static Configuration hadoopsDefaults() {
    Configuration conf = new Configuration(false);
    conf.addResource("core-default.xml");
    return conf;
  }

  @Test
  void aLocalMasterOrNoneGetsTheNioFileSystemForBothHadoopApis() {
    assertEquals(BOTH, JobSupport.addedSettings(new SparkConf(false), hadoopsDefaults()));
    assertEquals(BOTH,
        JobSupport.addedSettings(new SparkConf(false).setMaster("local[2]"), hadoopsDefaults()));
    assertEquals(BOTH,
        JobSupport.addedSettings(new SparkConf(false).setMaster("local"), hadoopsDefaults()));
  }

  @Test
  void aClusterMasterKeepsHadoopsAndAUsersChoiceWins() {
    assertEquals(Map.of(), JobSupport.addedSettings(
        new SparkConf(false).setMaster("spark://127.0.0.1:7077"), hadoopsDefaults()));
    assertEquals(Map.of(),
        JobSupport.addedSettings(new SparkConf(false).setMaster("yarn"), hadoopsDefaults()));
    SparkConf own = new SparkConf(false).setMaster("local[*]")
        .set(FS, "org.apache.hadoop.fs.LocalFileSystem");
    assertEquals(Map.of(AFS, NioLocalFs.class.getName()),
        JobSupport.addedSettings(own, hadoopsDefaults()));
    // A core-site.xml of the user's (here the tests' own, which names these classes) wins too.
    assertEquals(Map.of(),
        JobSupport.addedSettings(new SparkConf(false).setMaster("local[*]"), new Configuration()));
    Configuration set = hadoopsDefaults();
    set.set("fs.AbstractFileSystem.file.impl", "org.apache.hadoop.fs.local.LocalFs");
    assertEquals(Map.of(FS, NioLocalFileSystem.class.getName()),
        JobSupport.addedSettings(new SparkConf(false), set));
  }
}
