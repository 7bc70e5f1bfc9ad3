package io.github.sparkperceptron.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.github.sparkperceptron.internal.io.BadInputException;
import org.junit.jupiter.api.Test;

/**
 * The format hint of a bad file: added when the content is bad and the file's name says another
 * format, once, however many layers hand the error on (a stream's batch reads and then its query
 * ends with the same error).
 */
class DataFormatTest {
  private static final String BAD_LINE = "/in/x.csv:1: label 'label,a,b' is not a number"
      + " (stream input (--input), LIBSVM format: label index:value ...)";

  @Test
  void aBadCsvFileReadAsLibSvmGetsTheHintOnce() {
    BadInputException once = DataFormat.libsvm.hinted("/in", new BadInputException(BAD_LINE));
    assertEquals(BAD_LINE + "; did you mean --format csv?", once.getMessage());
    assertSame(once, DataFormat.libsvm.hinted("/in", once));
  }

  @Test
  void noHintWhereTheNameSaysTheSameFormatOrTheMessageIsNotAboutContent() {
    BadInputException sameFormat = new BadInputException("/in/x.libsvm:3: value 'abc' of"
        + " feature 4 is not a number");
    assertSame(sameFormat, DataFormat.libsvm.hinted("/in", sameFormat));
    BadInputException notContent = new BadInputException("The input '/in/x.csv' does not exist");
    assertSame(notContent, DataFormat.libsvm.hinted("/in", notContent));
  }
}
