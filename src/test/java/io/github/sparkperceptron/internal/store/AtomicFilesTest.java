package io.github.sparkperceptron.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one "write under a temporary name, then rename", on Hadoop's local file system. */
class AtomicFilesTest {
  @TempDir
  Path tmp;

  private FileSystem fs() throws IOException {
    return FileSystem.getLocal(new Configuration()).getRawFileSystem();
  }

  private static org.apache.hadoop.fs.Path hadoop(Path p) {
    return new org.apache.hadoop.fs.Path(p.toAbsolutePath().toString());
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private List<String> names(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  @Test
  void aWriteReplacesTheTargetAndAFailedOneLeavesItAsItWas() throws IOException {
    Path target = tmp.resolve("dir/state.bin");
    AtomicFiles.write(fs(), hadoop(target), out -> out.write(bytes("one")));
    AtomicFiles.write(fs(), hadoop(target), out -> out.write(bytes("two")));
    assertEquals("two", Files.readString(target));
    IOException e = assertThrows(IOException.class, () -> AtomicFiles.write(fs(), hadoop(target),
        out -> {
          out.write(bytes("half"));
          throw new IOException("disk full");
        }));
    assertEquals("disk full", e.getMessage());
    assertEquals("two", Files.readString(target), "the complete version stays");
    assertEquals(List.of("state.bin"), names(tmp.resolve("dir")), "no temporary is left");
  }

  @Test
  void aSwapKeepsTheOldVersionUntilTheNewOneIsInPlaceAndRecoveryRestoresIt() throws IOException {
    Path target = tmp.resolve("model");
    Files.createDirectories(target);
    Files.writeString(target.resolve("v"), "old");
    Path next = tmp.resolve(AtomicFiles.temporarySibling(hadoop(target)).getName());
    assertTrue(next.getFileName().toString().startsWith(".model.tmp-"), next.toString());
    Files.createDirectories(next);
    Files.writeString(next.resolve("v"), "new");
    AtomicFiles.swapIn(fs(), hadoop(next), hadoop(target));
    assertEquals("new", Files.readString(target.resolve("v")));
    assertEquals(List.of("model"), names(tmp));

    // A writer that died between the two renames left the old version aside and no target.
    Path aside = tmp.resolve(".model.old-1234");
    Files.move(target, aside);
    Files.createDirectories(tmp.resolve(".model.tmp-5678"));
    assertTrue(AtomicFiles.recoverSwap(fs(), hadoop(target)));
    assertEquals("new", Files.readString(target.resolve("v")));
    assertEquals(List.of("model"), names(tmp), "leftovers are removed");
    assertFalse(AtomicFiles.recoverSwap(fs(), hadoop(target)), "nothing to restore");
  }
}
