package io.statusaggregator.cli;

import io.quarkus.picocli.runtime.PicocliCommandLineFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.io.PrintWriter;
import org.jboss.logging.Logger;
import picocli.CommandLine;

/** The command line quarkus-picocli makes, with the application's handling of a command that fails. */
@ApplicationScoped
class CommandLines {
    private static final Logger LOG = Logger.getLogger(CommandLines.class);

    @Produces
    CommandLine commandLine(PicocliCommandLineFactory factory) {
        return handled(factory.create());
    }

    /** {@code commandLine} with the application's handling of a failed command and of a mistake on the command line. */
    static CommandLine handled(CommandLine commandLine) {
        return commandLine
                // Through the log, not straight to stderr, so that with JSON logs it stays one JSON line.
                .setExecutionExceptionHandler((e, command, parsed) -> {
                    // One line, what failed and why; the stack trace only at DEBUG, for a bug report.
                    LOG.error(failure(command, e));
                    LOG.debug("the failure's stack trace", e);
                    return 1;
                })
                // A mistake on the command line: what is wrong and where help is, not the whole usage after it.
                .setParameterExceptionHandler((e, args) -> {
                    CommandLine command = e.getCommandLine();
                    PrintWriter err = command.getErr();
                    err.println(e.getMessage());
                    CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
                    err.println("Try '" + command.getCommandSpec().qualifiedName() + " --help' for more.");
                    err.flush();
                    return command.getCommandSpec().exitCodeOnInvalidInput();
                });
    }

    /** "COMMAND failed: " and its causes. */
    static String failure(CommandLine command, Exception e) {
        return command.getCommandName() + " failed: " + causes(e);
    }

    /**
     * Each cause's type and message, outermost first, on one line: "KafkaException: ...; caused by ConfigException:
     * ...".
     */
    static String causes(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable cause = failure;
                cause != null && text.length() < 1_000;
                cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (!text.isEmpty()) {
                text.append("; caused by ");
            }
            text.append(cause.getClass().getSimpleName());
            if (cause.getMessage() != null) {
                text.append(": ").append(cause.getMessage().lines().findFirst().orElse(""));
            }
        }
        return text.toString();
    }
}
