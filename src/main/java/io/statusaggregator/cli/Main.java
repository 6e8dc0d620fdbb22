package io.statusaggregator.cli;

import io.quarkus.runtime.ApplicationLifecycleManager;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;
import java.util.Arrays;
import java.util.function.IntSupplier;
import picocli.CommandLine;

/**
 * The application's entry: the picocli command line quarkus-picocli builds from the {@code @TopCommand}
 * ({@link AggregatorCommand}), with its subcommands as CDI beans ({@link CommandLines} sets it up); the commands that
 * need no Quarkus run before it starts, and without it ({@link LightCommands}).
 */
@QuarkusMain
public class Main implements QuarkusApplication {
    @Inject
    CommandLine commandLine;

    /**
     * Quarkus opens its HTTP listeners (the user-facing port and the management interface) as it starts, before any
     * command runs. Only {@code run} serves HTTP: for the others they stay closed, so that {@code compute} or
     * {@code upgrade-check} next to a running aggregator do not fail on a port in use.
     */
    public static void main(String... args) {
        if (LightCommands.handles(args)) {
            // Quarkus' handler of a main's exit status: System.exit in the jar, what its test launcher records.
            ApplicationLifecycleManager.getDefaultExitCodeHandler().accept(LightCommands.execute(args), null);
            return;
        }
        if (!servesHttp(args)) {
            System.setProperty("quarkus.http.host-enabled", "false");
            System.setProperty("quarkus.management.host-enabled", "false");
        } else {
            StopSignal.install(); // a SIGTERM while Quarkus starts, before run does, is a request run then sees
        }
        Quarkus.run(Main.class, args);
    }

    /** Whether these arguments run the aggregator: {@code run}, or no command at all. */
    static boolean servesHttp(String... args) {
        return Arrays.stream(args).filter(arg -> !arg.startsWith("-")).findFirst().map("run"::equals).orElse(true)
                && Arrays.stream(args).noneMatch(arg -> arg.equals("-h") || arg.equals("--help") || arg.equals("-V")
                        || arg.equals("--version"));
    }

    @Override
    public int run(String... args) {
        return exitStatus(() -> commandLine.execute(args));
    }

    /** The exit status of a command line's execution, or 1 with one line when it ran out of memory. */
    static int exitStatus(IntSupplier execution) {
        try {
            return execution.getAsInt();
        } catch (OutOfMemoryError e) {
            // One line, not the stack trace: the user's remedy is the heap or the input, not the code.
            System.err.printf(
                    "error: out of memory (a heap of %d MiB); give the JVM more (java -Xmx...) or the command less"
                            + " input%n",
                    Runtime.getRuntime().maxMemory() >> 20);
            return 1;
        }
    }
}
