package io.statusaggregator.cli;

import io.quarkus.picocli.runtime.PicocliCommandLineFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.jboss.logging.Logger;
import picocli.CommandLine;

/** The command line quarkus-picocli makes, with the application's handling of a command that fails. */
@ApplicationScoped
class CommandLines {
    private static final Logger LOG = Logger.getLogger(CommandLines.class);

    @Produces
    CommandLine commandLine(PicocliCommandLineFactory factory) {
        return factory.create()
                // Through the log, not straight to stderr, so that with JSON logs it stays one JSON line.
                .setExecutionExceptionHandler((e, command, parsed) -> {
                    LOG.errorf(e, "%s failed", command.getCommandName());
                    return 1;
                });
    }
}
