package io.statusaggregator.pipeline;

import io.statusaggregator.topics.ObjectStateKey;
import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.statusaggregator.Pipeline;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.topics.ClusterPartitioner;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.operations.ClusterMetrics;
import io.statusaggregator.versions.json.CompatibilityReader;
import jakarta.inject.Inject;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The per-cluster metrics through the whole pipeline, on a real broker and the CRUD API server: scraped from the
 * application's own {@code /q/metrics} (Quarkus' registry, management interface), a cluster's series appear with the
 * values of its status and spec, follow a condition's change and a spec's, and vanish when the cluster is deleted,
 * its neighbour's staying. And with two instances in one consumer group, each exporting to a registry of its own,
 * every cluster is exported by exactly one of them, and by the survivor when the other stops.
 */
@QuarkusTest
class PerClusterMetricsTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();
    private final HttpClient http = HttpClient.newHttpClient();

    @Inject
    MeterRegistry registry;

    @TestHTTPResource(value = "/", management = true)
    URL management;

    @Test
    void aClustersSeriesAppearFollowItsStatusAndSpecAndVanishWithIt() throws Exception {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0); Fleet fleet = new Fleet(kubernetes.client());
                ClusterMetrics metrics = new ClusterMetrics(registry)) {
            String run = UUID.randomUUID().toString().substring(0, 8);
            try (Pipeline pipeline = new Pipeline(Fleet.settings(kafka.bootstrapServers(), run, true), kubernetes.newClient(),
                    CompatibilityReader.builtIn(), Clock.systemUTC()).observedBy(metrics)) {
                pipeline.start(DEADLINE);
                fleet.createCluster("metrics-alpha", 1, 2);
                fleet.createCluster("metrics-bravo", 1, 1);
                fleet.awaitCondition("metrics-alpha", "ControlPlaneInitialized", "False", "WaitingForControlPlaneInitialized",
                        "First control plane not ready yet");

                // As the Cluster shows it: every condition's three series, its transition time, its severity. Its
                // worker group too: a status computed before the MachineDeployment's record was read has none yet.
                Samples first = awaitScrape(samples -> showsConditions(samples, fleet, "metrics-alpha").isEmpty()
                        && !Double.isNaN(samples.value("eksa_cluster_worker_group_replicas_ready", "metrics-alpha", "worker_group", "md-0"))
                        && !Double.isNaN(samples.value("eksa_cluster_worker_group_replicas_desired", "metrics-bravo", "worker_group", "md-0")),
                        samples -> "alpha's conditions as the Cluster shows them, its md-0 and bravo's: " + showsConditions(samples, fleet, "metrics-alpha"));
                assertEquals(1.0, first.value("eksa_cluster_info", "metrics-alpha", "kubernetes_version", "1.31", "eksa_version", "v0.23.1", "cni", "cilium"));
                assertEquals(1.0, first.value("eksa_cluster_generation", "metrics-alpha"));
                assertEquals(1.0, first.value("eksa_cluster_observed_generation", "metrics-alpha"));
                assertEquals(2.0, first.value("eksa_cluster_worker_group_replicas_desired", "metrics-alpha", "worker_group", "md-0"));
                assertEquals(0.0, first.value("eksa_cluster_worker_group_replicas_ready", "metrics-alpha", "worker_group", "md-0"));
                assertEquals(1.0, first.value("eksa_cluster_worker_group_replicas_desired", "metrics-bravo", "worker_group", "md-0"));

                // A condition changes: its series flip, its transition series moves to the new status.
                fleet.controlPlaneReady("metrics-alpha", 1);
                fleet.awaitCondition("metrics-alpha", "ControlPlaneInitialized", "True", "", "");
                Instant initialized = Instant.parse((String) fleet.condition("default", "metrics-alpha", "ControlPlaneInitialized").get("lastTransitionTime"));
                Samples changed = awaitScrape(samples -> showsConditions(samples, fleet, "metrics-alpha").isEmpty(),
                        samples -> "ControlPlaneInitialized True: " + showsConditions(samples, fleet, "metrics-alpha"));
                assertEquals(0.0, changed.value("eksa_cluster_status_condition", "metrics-alpha", "type", "ControlPlaneInitialized", "status", "False"));
                assertEquals(initialized.getEpochSecond(), changed.value("eksa_cluster_status_condition_last_transition_time_seconds", "metrics-alpha",
                        "type", "ControlPlaneInitialized", "status", "True"));
                assertEquals(1, changed.count("eksa_cluster_status_condition_last_transition_time_seconds", "metrics-alpha", "type", "ControlPlaneInitialized"));

                // Workers become ready; a spec change: a new generation, observed once computed.
                fleet.workers("metrics-alpha", 1, 2, 2, 2);
                awaitScrape(s -> s.value("eksa_cluster_worker_group_replicas_ready", "metrics-alpha", "worker_group", "md-0") == 2.0, "md-0's 2 ready nodes");
                fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "metrics-alpha",
                        "{\"spec\": {\"workerNodeGroupConfigurations\": [{\"name\": \"md-0\", \"count\": 3}]}}");
                // A scrape is not atomic across series (nor is a Prometheus scrape anywhere): one taken while the
                // metrics thread sets a cluster's series may hold some new values and some old. So the wait is for both.
                awaitScrape(s -> s.value("eksa_cluster_observed_generation", "metrics-alpha") == 2.0
                        && s.value("eksa_cluster_worker_group_replicas_desired", "metrics-alpha", "worker_group", "md-0") == 3.0
                        && s.value("eksa_cluster_generation", "metrics-alpha") == 2.0,
                        "generation 2, observed, md-0 asking for the spec's 3 nodes");

                // Deleted: every series of it goes; its neighbour's stay.
                fleet.delete(ObjectKind.EKSA_CLUSTER, "default", "metrics-alpha");
                Samples deleted = awaitScrape(s -> s.ofCluster("metrics-alpha").isEmpty(), "alpha's series gone");
                assertEquals(1.0, deleted.value("eksa_cluster_generation", "metrics-bravo"));
                assertTrue(deleted.ofCluster("metrics-bravo").size() >= 30, "bravo's series: " + deleted.ofCluster("metrics-bravo").size());
            }
            await(DEADLINE, () -> metrics.caughtUp() && metrics.exported() == 0,
                    () -> "the pipeline stopped: its partitions left it, and every series with them; " + metrics.exported() + " left");
            assertTrue(scrape().ofCluster("metrics-bravo").isEmpty());
        }
    }

    @Test
    void twoInstancesInOneGroupExportEachClusterOnceAndTheSurvivorAllOfThem() throws Exception {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0); Fleet fleet = new Fleet(kubernetes.client())) {
            String run = UUID.randomUUID().toString().substring(0, 8);
            // A cluster on each of the test's 3 partitions, so that each instance has some.
            List<String> clusters = new ArrayList<>();
            for (int i = 0; clusters.size() < 3; i++) {
                String name = "spread-" + i;
                if (clusters.stream().noneMatch(c -> ObjectStateKey.partitionOf(c, 3) == ObjectStateKey.partitionOf(name, 3))) {
                    clusters.add(name);
                }
            }
            PrometheusMeterRegistry registryA = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            PrometheusMeterRegistry registryB = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            try (ClusterMetrics metricsA = new ClusterMetrics(registryA); ClusterMetrics metricsB = new ClusterMetrics(registryB);
                    Pipeline a = new Pipeline(Fleet.settings(kafka.bootstrapServers(), run, true), kubernetes.newClient(),
                            CompatibilityReader.builtIn(), Clock.systemUTC()).observedBy(metricsA)) {
                a.start(DEADLINE);
                clusters.forEach(name -> fleet.createCluster(name, 1, 1));
                await(DEADLINE, () -> exported(registryA).equals(new TreeSet<>(clusters)), () -> "A exports " + exported(registryA));

                Pipeline b = new Pipeline(Fleet.settings(kafka.bootstrapServers(), run, false), kubernetes.newClient(),
                        CompatibilityReader.builtIn(), Clock.systemUTC()).observedBy(metricsB);
                try {
                    b.start(DEADLINE);
                    await(DEADLINE, () -> {
                        Set<String> ofA = exported(registryA);
                        Set<String> ofB = exported(registryB);
                        Set<String> both = new TreeSet<>(ofA);
                        both.retainAll(ofB);
                        Set<String> all = new TreeSet<>(ofA);
                        all.addAll(ofB);
                        return !ofA.isEmpty() && !ofB.isEmpty() && both.isEmpty() && all.equals(new TreeSet<>(clusters));
                    }, () -> "split between A " + exported(registryA) + " and B " + exported(registryB));
                } finally {
                    b.close();
                }
                await(DEADLINE, () -> exported(registryA).equals(new TreeSet<>(clusters)) && exported(registryB).isEmpty(),
                        () -> "back to A: A " + exported(registryA) + ", B " + exported(registryB));
            }
        }
    }

    // --- helpers

    /** The clusters with a generation series in {@code registry}. */
    private static Set<String> exported(PrometheusMeterRegistry registry) {
        Set<String> names = new TreeSet<>();
        Samples.parse(registry.scrape()).all.stream().filter(s -> s.name.equals("eksa_cluster_generation")).forEach(s -> names.add(s.labels.get("name")));
        return names;
    }

    /**
     * Where the cluster's condition series differ from the conditions its Cluster shows (each condition's three
     * series, its one transition series under the current status, its severity's three): empty when they agree.
     */
    private static List<String> showsConditions(Samples samples, Fleet fleet, String cluster) {
        List<String> differences = new ArrayList<>();
        for (String type : List.of("ControlPlaneInitialized", "ControlPlaneReady", "WorkersReady", "DefaultCNIConfigured", "Ready")) {
            Map<String, Object> condition = fleet.condition("default", cluster, type);
            String status = (String) condition.get("status");
            String severity = (String) condition.getOrDefault("severity", "");
            for (String each : List.of("True", "False", "Unknown")) {
                double value = samples.value("eksa_cluster_status_condition", cluster, "type", type, "status", each);
                if (value != (each.equals(status) ? 1.0 : 0.0)) {
                    differences.add(type + " " + each + " = " + value + ", the Cluster shows " + status);
                }
            }
            double since = samples.value("eksa_cluster_status_condition_last_transition_time_seconds", cluster, "type", type, "status", status);
            long shown = Instant.parse((String) condition.get("lastTransitionTime")).getEpochSecond();
            if (since != shown || samples.count("eksa_cluster_status_condition_last_transition_time_seconds", cluster, "type", type) != 1) {
                differences.add(type + " last transition " + samples.of("eksa_cluster_status_condition_last_transition_time_seconds", cluster,
                        "type", type) + ", the Cluster shows " + status + " since " + shown);
            }
            for (String each : List.of("Error", "Warning", "Info")) {
                double value = samples.value("eksa_cluster_status_condition_severity", cluster, "type", type, "severity", each);
                if (value != (each.equals(severity) ? 1.0 : 0.0)) {
                    differences.add(type + " severity " + each + " = " + value + ", the Cluster shows \"" + severity + "\"");
                }
            }
        }
        return differences;
    }

    private Samples awaitScrape(Predicate<Samples> condition, String what) {
        return awaitScrape(condition, samples -> what + " in\n" + samples);
    }

    private Samples awaitScrape(Predicate<Samples> condition, java.util.function.Function<Samples, String> what) {
        Samples[] last = new Samples[1];
        await(DEADLINE, () -> {
            last[0] = scrape();
            return condition.test(last[0]);
        }, () -> what.apply(last[0]));
        return last[0];
    }

    private Samples scrape() {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(management.toURI().resolve("/q/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            return Samples.parse(response.body());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** The samples of a Prometheus text exposition, each with its labels. */
    private static final class Samples {
        private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})? (\\S+)(?: \\S+)?$");
        // Possessive: a label value's characters are taken in runs, not one recursion each (a long value overflowed the stack).
        private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]++|\\\\.)*+)\"");

        record Sample(String name, Map<String, String> labels, double value) {
        }

        final List<Sample> all = new ArrayList<>();

        static Samples parse(String text) {
            Samples samples = new Samples();
            for (String line : text.split("\n")) {
                Matcher m = LINE.matcher(line);
                if (line.startsWith("#") || !m.matches()) {
                    continue;
                }
                Map<String, String> labels = new HashMap<>();
                Matcher label = LABEL.matcher(Optional.ofNullable(m.group(2)).orElse(""));
                while (label.find()) {
                    labels.put(label.group(1), label.group(2));
                }
                samples.all.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3))));
            }
            return samples;
        }

        /** The samples of the EKS-A Cluster default/{@code cluster}. */
        List<Sample> ofCluster(String cluster) {
            return all.stream().filter(s -> s.name.startsWith("eksa_cluster_") && "default".equals(s.labels.get("namespace"))
                    && cluster.equals(s.labels.get("name"))).toList();
        }

        /** The samples of {@code metric} of the cluster whose labels include {@code labelsAndValues}. */
        List<Sample> of(String metric, String cluster, String... labelsAndValues) {
            return ofCluster(cluster).stream().filter(s -> s.name.equals(metric)).filter(s -> {
                for (int i = 0; i < labelsAndValues.length; i += 2) {
                    if (!labelsAndValues[i + 1].equals(s.labels.get(labelsAndValues[i]))) {
                        return false;
                    }
                }
                return true;
            }).toList();
        }

        int count(String metric, String cluster, String... labelsAndValues) {
            return of(metric, cluster, labelsAndValues).size();
        }

        /** The one sample's value; NaN when there is none. */
        double value(String metric, String cluster, String... labelsAndValues) {
            List<Sample> found = of(metric, cluster, labelsAndValues);
            assertTrue(found.size() <= 1, "more than one: " + found);
            return found.isEmpty() ? Double.NaN : found.get(0).value;
        }

        @Override
        public String toString() {
            return String.join("\n", all.stream().filter(s -> s.name.startsWith("eksa_cluster_")).map(Sample::toString).toList());
        }
    }
}
