package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainLauncher;
import io.quarkus.test.junit.main.QuarkusMainTest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The command line's help, as a user reads it in an 80-column terminal. */
@QuarkusMainTest
class HelpTest {
    private static final List<String> COMMANDS = List.of("run", "compute", "upgrade-check", "describe", "watch", "alerts", "help");

    private static void fitsEightyColumns(String text) {
        for (String line : text.split("\n")) {
            assertTrue(line.length() <= 80, "over 80 columns (" + line.length() + "): " + line + "\nin\n" + text);
        }
    }

    @Test
    void helpListsEveryCommandWithItsSummaryOnOneLine(QuarkusMainLauncher launcher) {
        LaunchResult result = launcher.launch("help");
        assertEquals(0, result.exitCode(), result.getErrorOutput());
        String out = result.getOutput();
        assertTrue(out.startsWith("The status of EKS Anywhere clusters"), out);
        fitsEightyColumns(out);
        List<String> lines = List.of(out.split("\n"));
        int first = lines.indexOf("Commands:") + 1;
        assertTrue(first > 0, out);
        List<String> listed = lines.subList(first, lines.size());
        assertEquals(COMMANDS, listed.stream().map(line -> line.trim().split("\\s+")[0]).toList(),
                "every command on a line of its own, its summary not wrapped: " + out);
    }

    @Test
    void everyCommandsHelpFitsAndNamesItsUsage(QuarkusMainLauncher launcher) {
        for (String command : COMMANDS.subList(0, COMMANDS.size() - 1)) {
            LaunchResult help = launcher.launch("help", command);
            assertEquals(0, help.exitCode(), command + ": " + help.getErrorOutput());
            assertTrue(help.getOutput().contains("Usage: status-aggregator " + command), help.getOutput());
            fitsEightyColumns(help.getOutput());
            LaunchResult option = launcher.launch(command, "--help");
            assertEquals(help.getOutput(), option.getOutput(), "help " + command + " and " + command + " --help agree");
        }
    }

    @Test
    void anUnknownCommandIsAOneLineErrorWithExitStatusTwo(QuarkusMainLauncher launcher) {
        LaunchResult result = launcher.launch("comptue");
        assertEquals(2, result.exitCode());
        assertTrue(result.getErrorOutput().startsWith("Unmatched argument at index 0: 'comptue'"), result.getErrorOutput());
        assertFalse(result.getErrorOutput().contains("at io."), "no stack trace: " + result.getErrorOutput());
    }

    @Test
    void onlyRunServesHttp() {
        assertTrue(Main.servesHttp());
        assertTrue(Main.servesHttp("run"));
        assertFalse(Main.servesHttp("run", "--help"));
        assertFalse(Main.servesHttp("compute", "fleet.yaml"));
        assertFalse(Main.servesHttp("help", "run"));
        assertFalse(Main.servesHttp("--version"));
    }
}
