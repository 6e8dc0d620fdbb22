package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.statusaggregator.aggregation.DeadLetterReason;
import io.statusaggregator.Pipeline;
import io.statusaggregator.RunningPipeline;
import io.statusaggregator.operations.MeteredKafkaClients;
import jakarta.inject.Inject;
import java.net.URL;
import io.statusaggregator.aggregation.DeadLetters;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.operations.PipelineMetrics;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Readiness before and after the pipeline has started and synced, and the metrics endpoint naming every metric: on
 * Quarkus' management interface, from SmallRye Health and Micrometer.
 */
@QuarkusTest
class OperationsTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @Inject
    RunningPipeline running;

    @Inject
    MeterRegistry registry;

    @Inject
    MeteredKafkaClients kafkaClients;

    /** The management interface: health and metrics, apart from the application's port. */
    @TestHTTPResource(value = "/", management = true)
    URL management;

    @TestHTTPResource("/")
    URL application;

    private HttpResponse<String> get(URL base, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(base.toURI().resolve(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Each readiness check by name, with its status. */
    private static Map<String, String> checks(String body) throws Exception {
        Map<String, String> checks = new java.util.LinkedHashMap<>();
        JSON.readTree(body).path("checks").forEach(check -> checks.put(check.path("name").asText(), check.path("status").asText()));
        return checks;
    }

    /** The value of a sample line like {@code name{labels} value} in the Prometheus text. */
    private static double sample(String text, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(?:\\{[^}]*\\})? ([0-9.eE+-]+)$").matcher(text);
        assertTrue(m.find(), name + " in\n" + text);
        return Double.parseDouble(m.group(1));
    }

    private static long writesTimed(MeterRegistry registry) {
        io.micrometer.core.instrument.Timer written = registry.find("aggregator_status_writes").tag("outcome", "written").timer();
        return written == null ? 0 : written.count();
    }

    /** The checks of {@code path} on the management interface, by name; empty when it does not answer. */
    private Map<String, String> health(String path) {
        try {
            return checks(get(management, path).body());
        } catch (Exception e) {
            return Map.of();
        }
    }

    @Test
    void notReadyUntilSyncedAndRebuiltThenMetricsForEveryStage() throws Exception {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0); Fleet fleet = new Fleet(kubernetes.client())) {
            PipelineMetrics metrics = new PipelineMetrics(registry);
            String run = UUID.randomUUID().toString().substring(0, 8);
            try (Pipeline pipeline = new Pipeline(Fleet.settings(kafka.bootstrapServers(), run, true),
                    kubernetes.newClient(), CompatibilityReader.builtIn(), Clock.systemUTC()).observedBy(metrics).observedBy(kafkaClients)) {
                assertEquals(200, get(management, "/q/health/live").statusCode());
                HttpResponse<String> starting = get(management, "/q/health/ready");
                assertEquals(503, starting.statusCode(), starting.body());
                assertEquals(Map.of("kubernetes-api", "DOWN", "rebuild", "DOWN", "version-history", "DOWN",
                        "ingest", "DOWN", "ingest-sends", "DOWN", "capi-versions", "DOWN"), checks(starting.body()));
                assertEquals(Map.of("kafka", "DOWN"), checks(get(management, "/q/health/well").body()));
                assertEquals(404, get(application, "/q/health/ready").statusCode(), "health is on the management interface only");
                HttpResponse<String> startup = get(management, "/q/health/started");
                assertEquals(503, startup.statusCode(), startup.body());
                assertEquals(Map.of("pipeline", "DOWN"), checks(startup.body()));

                pipeline.start(DEADLINE);
                metrics.bind(pipeline);
                running.started(pipeline);
                await(DEADLINE, () -> {
                    try {
                        return get(management, "/q/health/ready").statusCode() == 200;
                    } catch (Exception e) {
                        return false;
                    }
                }, () -> "never ready: " + pipeline.aggregator().progress());

                fleet.createCluster("alpha", 1, 1);
                fleet.awaitCondition("alpha", "ControlPlaneInitialized", "False", "WaitingForControlPlaneInitialized", "First control plane not ready yet");
                fleet.controlPlaneReady("alpha", 1);
                fleet.awaitCondition("alpha", "ControlPlaneInitialized", "True", "", "");
                // The write timer is told of a write after the writer has counted it: wait for the timer.
                await(DEADLINE, () -> pipeline.aggregator().writer().writes() >= 2 && writesTimed(registry) >= 2,
                        () -> "writes: " + pipeline.aggregator().writer().writes() + ", timed: " + writesTimed(registry));
                // A record aggregation cannot use, to be counted.
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers", kafka.bootstrapServers()),
                        new StringSerializer(), new StringSerializer())) {
                    producer.send(new ProducerRecord<>("object-states-" + run, "alpha/Machine.cluster.x-k8s.io/eksa-system/m", "not json"))
                            .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
                }
                await(DEADLINE, () -> pipeline.aggregator().deadLetters().sent(DeadLetterReason.NOT_JSON) == 1, () -> "not dead-lettered");

                // A request to the application's port, for the HTTP server series.
                assertEquals(200, get(application, "/upgrade-check/default/alpha").statusCode());
                String ready = get(management, "/q/health/ready").body();
                assertEquals(Map.of("kubernetes-api", "UP", "rebuild", "UP", "version-history", "UP", "ingest", "UP",
                        "ingest-sends", "UP", "capi-versions", "UP"), checks(ready));
                JsonNode versionsRead = JSON.missingNode();
                for (JsonNode check : JSON.readTree(ready).path("checks")) {
                    if (check.path("name").asText().equals("capi-versions")) {
                        versionsRead = check.path("data");
                    }
                }
                assertEquals("v1beta1", versionsRead.path("Machine.cluster.x-k8s.io").asText(),
                        "which version each kind is read at: " + ready);
                assertEquals("v1beta1",
                        versionsRead.path("KubeadmControlPlane.controlplane.cluster.x-k8s.io").asText());
                assertEquals(Map.of("kafka", "UP"), checks(get(management, "/q/health/well").body()));
                assertEquals(200, get(management, "/q/health/started").statusCode());

                HttpResponse<String> scraped = get(management, "/q/metrics");
                assertEquals(200, scraped.statusCode());
                assertTrue(scraped.headers().firstValue("Content-Type").orElse("").startsWith("application/openmetrics-text"),
                        "no Accept: OpenMetrics, " + scraped.headers().map());
                // What Prometheus asks with its default scrape protocols (docs/deploy.md): the text format.
                HttpResponse<String> asPrometheusAsks = http.send(HttpRequest.newBuilder(management.toURI().resolve("/q/metrics"))
                        .header("Accept", "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,"
                                + "application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,"
                                + "text/plain;version=0.0.4;q=0.2,*/*;q=0.1").build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, asPrometheusAsks.statusCode());
                assertEquals("text/plain; version=0.0.4; charset=utf-8", asPrometheusAsks.headers().firstValue("Content-Type").orElse(""));
                assertTrue(sample(asPrometheusAsks.body(), "aggregator_events_consumed_total") >= 3, "the text format's samples");
                String text = scraped.body();
                assertTrue(sample(text, "aggregator_events_ingested_total") >= 3, "ingested");
                assertTrue(sample(text, "aggregator_events_consumed_total") >= 3, "consumed");
                assertTrue(sample(text, "aggregator_computations_total") >= 2, "computations");
                assertEquals(0, sample(text, "aggregator_computation_failures_total"), "no computation failed");
                assertTrue(sample(text, "aggregator_busy_seconds_total") > 0, "the aggregation thread's busy time");
                assertTrue(sample(text, "aggregator_consumer_lag") >= 0, "lag");
                assertTrue(sample(text, "aggregator_coalescing_ratio") > 0, "coalescing ratio");
                // Caught up: the window is the one set (200 ms here), not grown.
                assertEquals(0.2, sample(text, "aggregator_coalescing_window_seconds"), 1e-9, "coalescing window");
                assertEquals(1, sample(text, "aggregator_clusters_tracked"));
                assertEquals(1, sample(text, "aggregator_ingesting"));
                // The embedded API serves Cluster API at v1beta1 only, as CAPI up to v1.10 does.
                assertEquals(1, sample(text, "aggregator_capi_api_version_info{kind=\"Machine\",version=\"v1beta1\"}"));
                assertEquals(0, sample(text, "aggregator_capi_api_version_info{kind=\"Machine\",version=\"v1beta2\"}"));
                assertEquals(1, sample(text,
                        "aggregator_capi_api_version_info{kind=\"EtcdadmCluster\",version=\"v1beta1\"}"));
                assertTrue(text.contains("aggregator_status_writes_seconds_count{outcome=\"written\"}"), text);
                assertTrue(sample(text, "aggregator_status_writes_seconds_count") >= 2, "writes counted");
                assertTrue(sample(text, "aggregator_status_writes_seconds_max") > 0, "write latency");
                assertEquals(1, sample(text, "aggregator_dead_letters_total{reason=\"not-json\"}"), "dead letters by reason");
                for (String reason : List.of("unknown-key", "unknown-kind", "malformed-object", "too-large")) {
                    assertEquals(0, sample(text, "aggregator_dead_letters_total{reason=\"" + reason + "\"}"), reason);
                }
                assertEquals(0, sample(text, "aggregator_dead_letter_failures_total"), "dead letters not sent");
                // The extension's own binders: the JVM, the HTTP server and the pipeline's Kafka clients.
                assertTrue(sample(text, "jvm_memory_used_bytes") > 0, "heap");
                assertTrue(sample(text, "jvm_gc_max_data_size_bytes") > 0, "GC");
                assertTrue(sample(text, "jvm_threads_live_threads") > 0, "threads");
                assertTrue(text.contains("http_server_requests_seconds_count{method=\"GET\",outcome=\"SUCCESS\",status=\"200\",uri=\"/upgrade-check/{namespace}/{name}\"}"),
                        "the upgrade check's request: " + text);
                assertTrue(sample(text, "kafka_consumer_fetch_manager_records_consumed_total") >= 3, "the aggregator's consumer");
                assertTrue(sample(text, "kafka_producer_record_send_total") >= 1, "the pipeline's producers");

                // The broker goes: wellness says so, readiness does not (the webhook and the upgrade check need no broker,
                // and readiness decides whether the Service sends them here).
                kafka.broker().stopBroker();
                try {
                    await(DEADLINE, () -> health("/q/health/well").equals(Map.of("kafka", "DOWN")), () -> "kafka still UP: " + health("/q/health/well"));
                    assertEquals(200, get(management, "/q/health/ready").statusCode(), "ready through the broker's outage");
                    assertEquals(503, get(management, "/q/health").statusCode(), "the whole health says DOWN");
                } finally {
                    kafka.broker().startBroker();
                }
                await(DEADLINE, () -> health("/q/health/well").equals(Map.of("kafka", "UP")), () -> "kafka not UP again");
            } finally {
                running.stopped();
            }
        }
    }
}
