package io.statusaggregator.cli;

import io.quarkus.arc.Arc;
import io.quarkus.arc.InstanceHandle;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import org.jboss.logging.Logger;
import picocli.CommandLine;

/** The application's entry: picocli commands whose objects come from CDI, so that they can inject configuration. */
@QuarkusMain
public class Main implements QuarkusApplication {
    private static final Logger LOG = Logger.getLogger(Main.class);

    @Override
    public int run(String... args) {
        return new CommandLine(AggregatorCommand.class, new CdiFactory())
                // Through the log, not straight to stderr, so that with aggregator.log.json it stays one JSON line.
                .setExecutionExceptionHandler((e, command, parsed) -> {
                    LOG.errorf(e, "%s failed", command.getCommandName());
                    return 1;
                })
                .execute(args);
    }

    /** Takes command objects from CDI where they are beans, and lets picocli make the rest. */
    static final class CdiFactory implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> type) throws Exception {
            InstanceHandle<K> bean = Arc.container().instance(type);
            return bean.isAvailable() ? bean.get() : CommandLine.defaultFactory().create(type);
        }
    }
}
