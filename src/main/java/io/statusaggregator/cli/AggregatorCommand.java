package io.statusaggregator.cli;

import io.quarkus.picocli.runtime.annotations.TopCommand;
import java.util.concurrent.Callable;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@TopCommand
@Command(
        name = "status-aggregator",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        header = "The status of EKS Anywhere clusters, from their Cluster API objects.",
        description = {
            "Without a command it runs the aggregator (the run command). "
                    + "`help COMMAND` or COMMAND --help shows a command's options."
        },
        subcommands = {
            RunCommand.class,
            ComputeCommand.class,
            UpgradeCheckCommand.class,
            DescribeCommand.class,
            WatchCommand.class,
            AlertsCommand.class,
            HelpCommand.class
        })
public class AggregatorCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** Without a command, the application runs the aggregator. */
    @Override
    public Integer call() throws Exception {
        return spec.commandLine().getSubcommands().get("run").execute();
    }
}
