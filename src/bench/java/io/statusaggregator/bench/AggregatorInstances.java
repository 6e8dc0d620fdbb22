package io.statusaggregator.bench;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Packaged aggregators ({@code java -jar target/quarkus-app/quarkus-run.jar run}) as a Deployment's replicas run it:
 * each a process of its own, against the harness's API server and broker, ingest under the Lease. With the
 * application's defaults unless {@code extraEnv} says otherwise; with a 1 GiB heap on the machine's CPUs unless
 * {@code launcher} says how else to run the JVM.
 */
final class AggregatorInstances implements AutoCloseable {
    static final String LEASE = "status-aggregator-ingest";
    private static final Pattern MANAGEMENT_PORT = Pattern.compile("health and metrics on the management interface, port (\\d+)");

    record Instance(String name, Process process, Path log) {
        Optional<Integer> managementPort() {
            Matcher port = MANAGEMENT_PORT.matcher(read(log));
            return port.find() ? Optional.of(Integer.parseInt(port.group(1))) : Optional.empty();
        }
    }

    private final List<Instance> instances = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Path kubeconfig;
    private final String bootstrapServers;
    private final String run;
    private final Map<String, String> extraEnv;
    private final Launcher launcher;

    /**
     * How an instance's JVM is started: {@code prefix} before {@code java} (as {@code taskset}), {@code options} after it.
     */
    record Launcher(List<String> prefix, List<String> options) {
        static final Launcher DEFAULT = new Launcher(List.of(), List.of("-Xmx1g"));
    }

    /** Instances on these topics and group, started one by one with {@link #start}. */
    AggregatorInstances(Path kubeconfig, String bootstrapServers, String run, Map<String, String> extraEnv) {
        this(kubeconfig, bootstrapServers, run, extraEnv, Launcher.DEFAULT);
    }

    AggregatorInstances(Path kubeconfig, String bootstrapServers, String run, Map<String, String> extraEnv, Launcher launcher) {
        this.kubeconfig = kubeconfig;
        this.bootstrapServers = bootstrapServers;
        this.run = run;
        this.extraEnv = extraEnv;
        this.launcher = launcher;
    }

    /** Starts the next instance, named a, b, ...; returns without waiting for it. */
    Instance start() throws IOException {
        Path jar = Path.of("target", "quarkus-app", "quarkus-run.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException("no packaged application at " + jar.toAbsolutePath() + ": run `mvn -Pbench package` first");
        }
        String name = String.valueOf((char) ('a' + instances.size()));
        Path log = Files.createTempFile("bench-instance-" + name, ".log");
        List<String> command = new ArrayList<>(launcher.prefix());
        command.add(Bench.java());
        command.addAll(launcher.options());
        // The aggregator's rebalances and rebuilds, for the timeline after a kill.
        command.addAll(List.of("-Dquarkus.log.category.\"io.statusaggregator.aggregation.Aggregator\".level=DEBUG", "-jar", jar.toString(), "run"));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        env.put("KUBECONFIG", kubeconfig.toString());
        env.put("KAFKA_BOOTSTRAP_SERVERS", bootstrapServers);
        env.put("AGGREGATOR_TOPICS_OBJECT_STATES", "object-states-" + run);
        env.put("AGGREGATOR_TOPICS_STATUSES", "statuses-" + run);
        env.put("AGGREGATOR_TOPICS_TRANSITIONS", "transitions-" + run);
        env.put("AGGREGATOR_TOPICS_DEAD_LETTERS", "dead-letters-" + run);
        env.put("AGGREGATOR_GROUP_ID", "aggregator-" + run);
        env.put("AGGREGATOR_CAPI_NAMESPACE", FleetWorkload.CAPI);
        env.put("AGGREGATOR_INGEST_LEASE_NAMESPACE", "default");
        env.put("QUARKUS_HTTP_PORT", "0");
        env.put("QUARKUS_MANAGEMENT_PORT", "0");
        env.put("HOSTNAME", "instance-" + name);
        // The workload clusters here are names without API servers: the CNI observer's watch per kubeconfig secret
        // (500 per instance) only loads the in-process mock API server, which then answers ingest's lists late.
        env.put("AGGREGATOR_CNI_MAX_CONNECTIONS", "0");
        env.putAll(extraEnv);
        Instance instance = new Instance(name, builder.start(), log);
        instances.add(instance);
        return instance;
    }

    /** Whether every instance answers ready (partitions rebuilt, Kafka and the API server connected). */
    boolean allReady() {
        return instances.stream().allMatch(this::ready);
    }

    private boolean ready(Instance instance) {
        Optional<Integer> port = instance.managementPort();
        if (port.isEmpty() || !instance.process().isAlive()) {
            return false;
        }
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.get() + "/q/health/ready"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static final Pattern STATUS_WRITES = Pattern.compile("(?m)^aggregator_status_writes_seconds_count\\{outcome=\"([a-z]+)\"[^}]*} ([0-9.eE+]+)$");

    /** The instance's status write attempts so far, by outcome (written, retried, gone, refused), from its metrics. */
    Map<String, Long> statusWrites(Instance instance) throws IOException, InterruptedException {
        int port = instance.managementPort().orElseThrow(() -> new IllegalStateException("the instance has no management port yet"));
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/metrics"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IllegalStateException("the instance's metrics answered " + answer.statusCode() + " (AGGREGATOR_ACCESS_REVIEW=false reads them without a token)");
        }
        String metrics = answer.body();
        Map<String, Long> byOutcome = new java.util.TreeMap<>();
        Matcher line = STATUS_WRITES.matcher(metrics);
        while (line.find()) {
            byOutcome.merge(line.group(1), (long) Double.parseDouble(line.group(2)), Long::sum);
        }
        return byOutcome;
    }

    /** The instance holding the ingest Lease (its identity is HOSTNAME-pid), if one does. */
    Optional<Instance> leaseHolder(KubernetesClient api) {
        Lease lease = api.leases().inNamespace("default").withName(LEASE).get();
        if (lease == null || lease.getSpec() == null || lease.getSpec().getHolderIdentity() == null) {
            return Optional.empty();
        }
        String holder = lease.getSpec().getHolderIdentity();
        return instances.stream().filter(i -> holder.equals("instance-" + i.name() + "-" + i.process().pid())).findFirst();
    }

    /** SIGKILL: no shutdown hook, no leaving the consumer group, no Lease given up. Returns when the process is gone. */
    void kill(Instance instance) throws InterruptedException {
        instance.process().destroyForcibly();
        if (!instance.process().waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("instance " + instance.name() + " did not die");
        }
    }

    /** What {@code instance} logged from {@code sinceMillis} (wall clock) on about the Lease, ingest and the group. */
    String timeline(Instance instance, long sinceMillis) {
        java.time.format.DateTimeFormatter format = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss,SSS");
        StringBuilder text = new StringBuilder();
        for (String line : read(instance.log()).lines().toList()) {
            if (line.length() < 23 || !(line.contains("lease") || line.contains("ingest") || line.contains("partition") || line.contains("assigned"))) {
                continue;
            }
            try {
                long at = java.time.LocalDateTime.parse(line.substring(0, 23), format).atZone(java.time.ZoneId.systemDefault())
                        .toInstant().toEpochMilli();
                if (at >= sinceMillis) {
                    text.append(String.format("  +%5.1f s %s%n", (at - sinceMillis) / 1000.0, line.substring(24, Math.min(line.length(), 220))));
                }
            } catch (java.time.format.DateTimeParseException e) {
                // a continuation line
            }
        }
        return text.toString();
    }

    Optional<Instance> survivor(Instance killed) {
        return instances.stream().filter(i -> i != killed).findFirst();
    }

    /** The last lines of every instance's log, for a failure's message. */
    String logs() {
        StringBuilder text = new StringBuilder();
        for (Instance instance : instances) {
            List<String> lines = read(instance.log()).lines().toList();
            text.append("--- instance ").append(instance.name()).append('\n')
                    .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()))).append('\n');
        }
        return text.toString();
    }

    private static String read(Path log) {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void close() throws Exception {
        for (Instance instance : instances) {
            instance.process().destroy();
        }
        for (Instance instance : instances) {
            if (!instance.process().waitFor(30, TimeUnit.SECONDS)) {
                instance.process().destroyForcibly();
            }
            if (Boolean.getBoolean("bench.keep-instance-logs")) {
                Bench.log("instance %s's log kept: %s", instance.name(), instance.log());
            } else {
                Files.deleteIfExists(instance.log());
            }
        }
    }
}
