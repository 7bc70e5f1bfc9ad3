package io.github.sparkperceptron.internal.store;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFs;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.fs.FsConstants;
import org.apache.hadoop.fs.FsServerDefaults;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.local.LocalConfigKeys;

/**
 * {@link NioLocalFileSystem} for {@code FileContext} (Hadoop's {@code AbstractFileSystem} API,
 * which Structured Streaming's checkpoint uses): what Hadoop's {@code LocalFs} is, checksums over
 * the raw local file system, with that raw file system being {@link NioLocalFileSystem}'s. Hadoop's
 * {@code LocalFs} cannot be extended from outside its package, so this is its equal, not its
 * subclass; Spark 4 asks a checkpoint's file system whether it is local only to pass the answer
 * on, and nothing reads it.
 */
public class NioLocalFs extends ChecksumFs {
  public NioLocalFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(new Raw(uri, conf));
  }

  /** Hadoop's {@code RawLocalFs} over {@link NioLocalFileSystem}'s raw file system. */
  static final class Raw extends DelegateToFileSystem {
    Raw(URI uri, Configuration conf) throws IOException, URISyntaxException {
      super(uri, new NioLocalFileSystem.NioRawLocalFileSystem(), conf,
          FsConstants.LOCAL_FS_URI.getScheme(), false);
    }

    @Override
    public int getUriDefaultPort() {
      return -1;
    }

    @Override
    public FsServerDefaults getServerDefaults(Path f) throws IOException {
      return LocalConfigKeys.getServerDefaults();
    }

    @Override
    @SuppressWarnings("deprecation")
    public FsServerDefaults getServerDefaults() throws IOException {
      return LocalConfigKeys.getServerDefaults();
    }

    @Override
    public boolean isValidName(String src) {
      // Local names may hold ':' and other characters that HDFS refuses.
      return true;
    }
  }
}
