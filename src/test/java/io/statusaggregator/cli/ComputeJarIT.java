package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The packaged application exactly as the README runs it ({@code java -jar target/quarkus-app/quarkus-run.jar}),
 * in its own process: standard input, standard output and exit codes are the real ones.
 */
class ComputeJarIT {
    private static JarProcess.Finished run(byte[] stdin, String... args) throws IOException, InterruptedException {
        return JarProcess.run(List.of(), java.util.Map.of(), stdin, args);
    }

    private static JarProcess.Finished run(java.util.Map<String, String> env, byte[] stdin, String... args) throws IOException, InterruptedException {
        return JarProcess.run(List.of(), env, stdin, args);
    }

    @Test
    void computesFromStandardInput() throws Exception {
        JarProcess.Finished fromFile = run(new byte[0], "compute", ComputeCommandTest.FLEET, "--now", "2026-11-22T10:00:00Z");
        JarProcess.Finished fromStdin = run(Files.readAllBytes(Path.of(ComputeCommandTest.FLEET)), "compute", "-", "--now", "2026-11-22T10:00:00Z");
        assertEquals(0, fromStdin.exitCode(), fromStdin.err());
        assertEquals(fromFile.out(), fromStdin.out());
        assertTrue(fromStdin.out().startsWith("---\napiVersion: \"anywhere.eks.amazonaws.com/v1alpha1\"\nkind: \"Cluster\"\n"),
                fromStdin.out());
        assertEquals(DEV_UNOBSERVED, fromStdin.err(), "a clean run prints nothing else on standard error");
    }

    /** What compute says of the example file's dev, whose CNI is not observed in it (ComputeCommandTest checks the note). */
    private static final String DEV_UNOBSERVED = ComputeCommand.cniNote(List.of("default/dev")) + "\n";

    /** Only {@code run} opens HTTP listeners: compute works beside an aggregator that holds the ports. */
    @Test
    void computeOpensNoPortSoItRunsBesideARunningAggregator() throws Exception {
        try (java.net.ServerSocket http = new java.net.ServerSocket(0); java.net.ServerSocket management = new java.net.ServerSocket(0)) {
            JarProcess.Finished run = run(java.util.Map.of("QUARKUS_HTTP_PORT", Integer.toString(http.getLocalPort()),
                    "QUARKUS_MANAGEMENT_PORT", Integer.toString(management.getLocalPort())),
                    new byte[0], "compute", ComputeCommandTest.FLEET, "--now", "2026-11-22T10:00:00Z");
            assertEquals(0, run.exitCode(), run.err());
            assertEquals(DEV_UNOBSERVED, run.err(), "no port in use reported");
        }
    }

    /** Out of memory, the command says so in one line and how to give it more; no stack trace. */
    @Test
    void outOfMemoryIsOneLine() throws Exception {
        Path big = Files.createTempFile("big", ".yaml");
        Files.writeString(big, ComputeRunner.configMapList(30 << 20, 150));
        JarProcess.Finished run = JarProcess.run(List.of("-Xmx48m"), java.util.Map.of(), new byte[0], "compute", big.toString());
        assertEquals(1, run.exitCode(), run.err());
        assertEquals("", run.out());
        assertTrue(run.err().startsWith("error: out of memory (a heap of "), run.err());
        assertEquals(1, run.err().lines().count(), run.err());
    }

    @Test
    void badInputExitsWithTwoAndPrintsNothingOnStandardOutput() throws Exception {
        JarProcess.Finished run = run("kind: [\n".getBytes(StandardCharsets.UTF_8), "compute", "-");
        assertEquals(2, run.exitCode());
        assertEquals("", run.out());
        assertTrue(run.err().startsWith("error: document 1: not valid YAML"), run.err());
    }

    @Test
    void helpListsTheCommands() throws Exception {
        JarProcess.Finished run = run(new byte[0], "--help");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("run ") && run.out().contains("compute "), run.out());
    }
}
