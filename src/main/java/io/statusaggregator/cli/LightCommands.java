package io.statusaggregator.cli;

import java.util.Arrays;
import java.util.Set;
import picocli.CommandLine;

/**
 * The commands that answer at once: {@code compute}, {@code describe}, {@code upgrade-check}, {@code help} and every
 * command's {@code --help}, run by picocli alone, before and without Quarkus (no CDI container, HTTP, Kafka or
 * Kubernetes client unless the command reads the API). Starting Quarkus costs them more than their work; the same
 * command classes, handlers and messages as under Quarkus ({@link CommandLines}).
 */
final class LightCommands {
    private static final Set<String> LIGHT = Set.of("compute", "describe", "upgrade-check", "help");

    private LightCommands() {
    }

    /**
     * Whether these arguments run a light command: one of those, or any command's help. Not {@code --version}, which
     * reads the version Quarkus' configuration carries, and not a command that runs the pipeline or reads a feed.
     */
    static boolean handles(String... args) {
        boolean help = Arrays.stream(args).anyMatch(arg -> arg.equals("-h") || arg.equals("--help"));
        boolean version = Arrays.stream(args).anyMatch(arg -> arg.equals("-V") || arg.equals("--version"));
        String command = Arrays.stream(args).filter(arg -> !arg.startsWith("-")).findFirst().orElse("");
        return !version && (help || LIGHT.contains(command));
    }

    /** Runs the command these arguments name; its exit status. */
    static int execute(String... args) {
        try (StandaloneSettings settings = new StandaloneSettings()) {
            CommandLine commandLine = CommandLines.handled(new CommandLine(new AggregatorCommand(), factory(settings)))
                    // The failure's line on standard error itself: Quarkus' entry point holds log records back until
                    // Quarkus configures logging, which never happens here.
                    .setExecutionExceptionHandler((e, command, parsed) -> {
                        System.err.println("error: " + CommandLines.failure(command, e));
                        return 1;
                    });
            return Main.exitStatus(() -> commandLine.execute(args));
        }
    }

    /** Makes each command as picocli does, and gives those that read settings or the API the standalone ones. */
    private static CommandLine.IFactory factory(CommandSettings settings) {
        CommandLine.IFactory plain = CommandLine.defaultFactory();
        return new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                K made = plain.create(type);
                if (made instanceof ComputeCommand compute) {
                    compute.settings = settings;
                } else if (made instanceof DescribeCommand describe) {
                    describe.settings = settings;
                } else if (made instanceof UpgradeCheckCommand upgradeCheck) {
                    upgradeCheck.settings = settings;
                }
                return made;
            }
        };
    }
}
