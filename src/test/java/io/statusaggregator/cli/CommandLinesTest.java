package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

/** A command that fails unexpectedly says why in one line: each cause's type and the first line of its message. */
class CommandLinesTest {
    @Test
    void aFailureIsOneLineOfItsCauses() {
        RuntimeException failure = new IllegalStateException("Failed to construct kafka consumer",
                new UncheckedIOException("reading the trust store\n\tat some.Frame(Frame.java:1)", new IOException("no such file")));
        assertEquals("IllegalStateException: Failed to construct kafka consumer; caused by UncheckedIOException: reading the trust store; "
                + "caused by IOException: no such file", CommandLines.causes(failure));
        assertEquals("NullPointerException", CommandLines.causes(new NullPointerException()));

        Throwable deep = new IOException("x".repeat(600));
        for (int i = 0; i < 10; i++) {
            deep = new RuntimeException("y".repeat(600), deep);
        }
        assertTrue(CommandLines.causes(deep).length() < 2_000, "bounded however deep the chain");
    }
}
