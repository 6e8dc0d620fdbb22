package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * The commands that run without Quarkus: which they are, and that they answer as under Quarkus (ComputeCommandTest and
 * HelpTest hold the same answers for the commands run by Quarkus; the *JarIT tests run both through the jar).
 */
class LightCommandsTest {
    private record Output(int exitCode, String out, String err) {
    }

    private static Output captured(IntSupplier command) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(outBytes, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(errBytes, true, StandardCharsets.UTF_8));
            int exitCode = command.getAsInt();
            return new Output(exitCode, outBytes.toString(StandardCharsets.UTF_8),
                    errBytes.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    @Test
    void theCommandsThatReadAFileOrTheApiAndEveryHelpRunWithoutQuarkus() {
        assertTrue(LightCommands.handles("compute", "fleet.yaml"));
        assertTrue(LightCommands.handles("describe", "default/alpha", "--all"));
        assertTrue(LightCommands.handles("upgrade-check", "--cluster", "default/alpha"));
        assertTrue(LightCommands.handles("help", "watch"));
        assertTrue(LightCommands.handles("--help"));
        assertTrue(LightCommands.handles("watch", "--help"));
        assertTrue(LightCommands.handles("run", "-h"));
    }

    @Test
    void theCommandsThatRunThePipelineOrReadAFeedAndTheVersionStartQuarkus() {
        assertFalse(LightCommands.handles());
        assertFalse(LightCommands.handles("run"));
        assertFalse(LightCommands.handles("watch", "default/alpha"));
        assertFalse(LightCommands.handles("alerts", "--alertmanager", "http://127.0.0.1:9093"));
        assertFalse(LightCommands.handles("--version"));
        assertFalse(LightCommands.handles("compute", "-V"));
    }

    @Test
    void computeAnswersAsUnderQuarkus() {
        Output result = captured(
                () -> LightCommands.execute("compute", ComputeCommandTest.FLEET, "--now", "2026-11-22T10:00:00Z"));
        assertEquals(0, result.exitCode(), result.err());
        assertEquals(2, result.out().lines().filter(line -> line.equals("---")).count(), result.out());
        assertTrue(result.out().contains("lastTransitionTime: \"2026-11-22T10:00:00Z\""), result.out());
        assertTrue(result.err().startsWith("note: no CNIObservation in the input for default/dev: "), result.err());
    }

    @Test
    void aMistakeIsOneLineWithTheExitStatusTheHelpPromises() {
        Output bad = captured(
                () -> LightCommands.execute("compute", ComputeCommandTest.FLEET, "--capi-namespace", "Bad_NS"));
        assertEquals(ComputeCommand.BAD_INPUT, bad.exitCode());
        assertTrue(bad.err().startsWith("error: --capi-namespace: namespace \"Bad_NS\" is not a Kubernetes namespace"),
                bad.err());
        Output typo = captured(() -> LightCommands.execute("comptue"));
        assertEquals(2, typo.exitCode());
        assertTrue(typo.err().startsWith("Unmatched argument at index 0: 'comptue'"), typo.err());
        assertTrue(typo.err().contains("Try 'status-aggregator --help' for more."), typo.err());
    }

    @Test
    void helpListsTheCommandsAndEachCommandHasItsUsage() {
        Output help = captured(() -> LightCommands.execute("help"));
        assertEquals(0, help.exitCode(), help.err());
        assertTrue(help.out().startsWith("The status of EKS Anywhere clusters"), help.out());
        for (String command : java.util.List.of("run", "compute", "upgrade-check", "describe", "watch", "alerts")) {
            Output usage = captured(() -> LightCommands.execute(command, "--help"));
            assertEquals(0, usage.exitCode(), usage.err());
            assertTrue(usage.out().contains("Usage: status-aggregator " + command), usage.out());
        }
    }
}
