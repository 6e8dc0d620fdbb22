package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The embedded default stopped by SIGTERM at a moment of its start, as a service manager or a user's script might stop
 * it: each moment is the log line of a stage (no fixed delay), from the broker starting to the pipeline creating its
 * topics. It exits 0 with one line, no stack trace, and leaves nothing behind: not the broker's temporary directory
 * (its java.io.tmpdir is the test's own, to look in), not the kubeconfig nor the broker's address.
 */
class StopWhileStartingJarIT {
    @ParameterizedTest(name = "SIGTERM at \"{0}\"")
    @ValueSource(strings = {
            "starting the embedded default",   // the broker starting
            "tick 1: cluster alpha created",   // the API server up, the fleet's first step
            "HTTP endpoints on HTTP port",     // asking the API server what it serves
            "created topics"})                 // in the pipeline's start
    void aStopAtAnyMomentOfTheStartIsClean(String stage) throws Exception {
        Path temp = Files.createTempDirectory("stop-while-starting");
        Path state = temp.resolve("status-aggregator");
        int exit;
        String err;
        try (JarProcess process = JarProcess.start(List.of("-Djava.io.tmpdir=" + temp), Map.of("QUARKUS_HTTP_PORT", "0",
                "QUARKUS_MANAGEMENT_PORT", "0"))) {
            process.awaitErr(Duration.ofSeconds(90), stage);
            exit = process.stop();
            err = process.err();
        }
        assertEquals(0, exit, "the documented status of a SIGTERM; standard error:\n" + err);
        assertFalse(err.contains("\tat ") || err.contains("Exception") || err.contains("ERROR"), "no stack trace:\n" + err);
        assertTrue(err.contains("stopped while starting; what had started is stopped")
                || err.contains("status aggregator running"), "the stop said in one line, or the start done first:\n" + err);
        try (Stream<Path> left = Files.list(temp)) {
            assertEquals(List.of(), left.filter(p -> p.getFileName().toString().startsWith("status-aggregator-kafka")).toList(),
                    "the broker's directory is removed:\n" + err);
        }
        if (Files.exists(state)) {
            try (Stream<Path> left = Files.list(state)) {
                assertEquals(List.of(), left.toList(), "the kubeconfig and the broker's address are removed");
            }
        }
    }
}
