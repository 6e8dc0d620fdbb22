package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.statusaggregator.embedded.EmbeddedKafka;
import io.statusaggregator.embedded.EmbeddedKubernetes;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fault: an instance killed without shutdown (SIGKILL) while another shares its consumer group. Two packaged
 * applications run against one broker and one API server; the one holding the ingest Lease is killed. The survivor
 * takes its partitions and the Lease, rebuilds, and converges on changes made after the kill, without writing the
 * status of any cluster that did not change.
 */
@Tag("faults")
class InstanceKillIT {
    private static final Duration CONVERGE = Duration.ofSeconds(90);
    private static final int CLUSTERS = 6;

    private record Instance(Process process, Path log) {
        int port() {
            Matcher port = Pattern.compile("health and metrics on the management interface, port (\\d+)").matcher(read(log));
            return port.find() ? Integer.parseInt(port.group(1)) : -1;
        }
    }

    private static Instance start(EmbeddedKafka kafka, Path kubeconfig, String name) throws IOException {
        return start(kafka, kubeconfig, name, Map.of());
    }

    private static Instance start(EmbeddedKafka kafka, Path kubeconfig, String name, Map<String, String> settings) throws IOException {
        Path log = Files.createTempFile("instance-" + name, ".log");
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", "target/quarkus-app/quarkus-run.jar", "run")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        env.put("KUBECONFIG", kubeconfig.toString());
        env.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
        // The application's defaults: a dead member leaves the group, and a dead holder loses the Lease, after 3 s.
        env.put("QUARKUS_HTTP_PORT", "0");
        env.put("QUARKUS_MANAGEMENT_PORT", "0");
        env.put("HOSTNAME", name);
        env.putAll(settings);
        return new Instance(builder.start(), log);
    }

    private static boolean ready(Instance instance) {
        int port = instance.port();
        if (port < 0) {
            return false;
        }
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    @Test
    void theSurvivorTakesOverAndConvergesWithoutRewritingUnchangedClusters() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(); EmbeddedKubernetes api = EmbeddedKubernetes.start(0);
                Fleet fleet = new Fleet(api.client())) {
            Path kubeconfig = api.writeKubeconfig(Files.createTempDirectory("instance-kill").resolve("kubeconfig"));
            List<Instance> instances = new ArrayList<>(List.of(start(kafka, kubeconfig, "first"), start(kafka, kubeconfig, "second")));
            try {
                await(CONVERGE, () -> instances.stream().allMatch(InstanceKillIT::ready),
                        () -> "not both ready:\n" + read(instances.get(0).log()) + "\n---\n" + read(instances.get(1).log()));
                for (int i = 0; i < CLUSTERS; i++) {
                    fleet.createCluster("c" + i, 1, 1, Churn.CNI);
                    fleet.controlPlaneReady("c" + i, 1);
                    fleet.workers("c" + i, 1, 1, 1, 1);
                }
                Convergence convergence = new Convergence(api.client(), Map.of("bootstrap.servers", kafka.bootstrapServers()),
                        "cluster-statuses", "cluster-transitions", "capi-object-states");
                awaitConverged(convergence, "the fleet's start");

                // Status writes from now on, per cluster.
                Map<String, AtomicInteger> writes = new ConcurrentHashMap<>();
                Pattern statusPatch = Pattern.compile("/namespaces/default/clusters/([^/]+)/status");
                api.onRequest(request -> {
                    Matcher cluster = statusPatch.matcher(request.getPath());
                    if (request.getMethod().equals("PATCH") && cluster.find()) {
                        writes.computeIfAbsent(cluster.group(1), c -> new AtomicInteger()).incrementAndGet();
                    }
                });

                // SIGKILL the instance holding the ingest Lease: no shutdown, no leaving the group, no Lease given up.
                Lease lease = api.client().leases().inNamespace("default").withName("status-aggregator-ingest").get();
                String holder = lease.getSpec().getHolderIdentity();
                // A replica's identity in the Lease is HOSTNAME-pid.
                Instance killed = instances.stream().filter(i -> holder.endsWith("-" + i.process().pid())).findFirst()
                        .orElseThrow(() -> new AssertionError("no instance holds the Lease: " + holder));
                killed.process().destroyForcibly();
                assertTrue(killed.process().waitFor(10, TimeUnit.SECONDS));
                instances.remove(killed);

                // Changes after the kill: ingest and aggregation must both have moved to the survivor.
                fleet.workers("c0", 2, 2, 1, 1);
                fleet.patchStatus(io.statusaggregator.model.ObjectKind.KUBEADM_CONTROL_PLANE, Fleet.CAPI, "c1", """
                        {"status": {"readyReplicas": 0, "conditions": [{"type": "Available", "status": "False"}]}}""");
                awaitConverged(convergence, "the kill of the Lease holder (" + holder + ")");
                assertTrue(writes.getOrDefault("c0", new AtomicInteger()).get() >= 1 && writes.getOrDefault("c1", new AtomicInteger()).get() >= 1,
                        "the changed clusters were written: " + writes);
                for (int i = 2; i < CLUSTERS; i++) {
                    assertEquals(0, writes.getOrDefault("c" + i, new AtomicInteger()).get(), "c" + i + " did not change: " + writes);
                }
                String survivor = api.client().leases().inNamespace("default").withName("status-aggregator-ingest").get().getSpec().getHolderIdentity();
                assertTrue(!survivor.equals(holder), "the survivor holds the Lease: " + survivor);
            } finally {
                for (Instance instance : instances) {
                    instance.process().destroy();
                    instance.process().waitFor(30, TimeUnit.SECONDS);
                }
            }
        }
    }

    /**
     * A replica that can no longer aggregate exits rather than live on answering its probes: here another consumer joins
     * with its {@code group.instance.id} (a static member configured twice), and the broker fences the first.
     */
    @Test
    void aReplicaFencedOutOfItsGroupExitsWithStatus3() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(); EmbeddedKubernetes api = EmbeddedKubernetes.start(0)) {
            Path kubeconfig = api.writeKubeconfig(Files.createTempDirectory("instance-fenced").resolve("kubeconfig"));
            Map<String, String> sameMember = Map.of("KAFKA_GROUP_INSTANCE_ID", "status-aggregator-0");
            Instance first = start(kafka, kubeconfig, "first", sameMember);
            Instance second = null;
            try {
                await(CONVERGE, () -> ready(first), () -> "not ready:\n" + read(first.log()));
                second = start(kafka, kubeconfig, "second", sameMember);

                assertTrue(first.process().waitFor(CONVERGE.toSeconds(), TimeUnit.SECONDS), "the fenced replica still runs:\n" + read(first.log()));
                assertEquals(3, first.process().exitValue(), read(first.log()));
                String log = read(first.log());
                assertTrue(log.contains("aggregation stopped: org.apache.kafka.common.errors.FencedInstanceIdException")
                        && log.contains("exiting with status 3"), log);
            } finally {
                for (Instance instance : second == null ? List.of(first) : List.of(first, second)) {
                    instance.process().destroy();
                    instance.process().waitFor(30, TimeUnit.SECONDS);
                }
            }
        }
    }

    private static void awaitConverged(Convergence convergence, String after) {
        List<List<String>> last = new ArrayList<>(List.of(List.of()));
        await(CONVERGE, () -> {
            last.set(0, convergence.divergences());
            return last.get(0).isEmpty();
        }, () -> "no convergence after " + after + ":\n  " + String.join("\n  ", last.get(0)));
    }

    private static String read(Path log) {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
