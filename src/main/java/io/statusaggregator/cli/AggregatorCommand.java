package io.statusaggregator.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "status-aggregator",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {
                "Computes the status of EKS Anywhere clusters from their Cluster API objects.",
                "Run a command with --help for its options."},
        subcommands = {ComputeCommand.class})
public class AggregatorCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** Without a command there is nothing to do yet: say which commands there are. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 2;
    }
}
