package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.statusaggregator.HttpEndpoints;
import io.statusaggregator.Pipeline;
import io.statusaggregator.aggregation.DeadLetters;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.operations.OperationsRoutes;
import io.statusaggregator.operations.PipelineMetrics;
import io.statusaggregator.versions.CompatibilityReader;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Readiness before and after the pipeline has started and synced, and the metrics endpoint naming every metric. */
class OperationsTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();
    private static Vertx vertx;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void vertx() throws Exception {
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stopVertx() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get();
    }

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The value of a sample line like {@code name{labels} value} in the Prometheus text. */
    private static double sample(String text, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(?:\\{[^}]*\\})? ([0-9.eE+-]+)$").matcher(text);
        assertTrue(m.find(), name + " in\n" + text);
        return Double.parseDouble(m.group(1));
    }

    private static long writesTimed(PrometheusMeterRegistry registry) {
        io.micrometer.core.instrument.Timer written = registry.find("aggregator_status_writes").tag("outcome", "written").timer();
        return written == null ? 0 : written.count();
    }

    @Test
    void notReadyUntilSyncedAndRebuiltThenMetricsForEveryStage() throws Exception {
        try (EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start(0); Fleet fleet = new Fleet(kubernetes.client())) {
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            PipelineMetrics metrics = new PipelineMetrics(registry);
            AtomicReference<Pipeline> started = new AtomicReference<>();
            String run = UUID.randomUUID().toString().substring(0, 8);
            try (HttpEndpoints endpoints = new HttpEndpoints(vertx, new HttpEndpoints.Settings(0, Optional.empty(), Optional.empty()))
                    .with(new OperationsRoutes(started::get, registry)::addTo);
                    Pipeline pipeline = new Pipeline(Fleet.settings(kafka.bootstrapServers(), run, true),
                            kubernetes.newClient(), CompatibilityReader.builtIn(), Clock.systemUTC()).observedBy(metrics)) {
                int port = endpoints.start(DEADLINE);
                assertEquals(200, get(port, "/q/health/live").statusCode());
                HttpResponse<String> starting = get(port, "/q/health/ready");
                assertEquals(503, starting.statusCode(), starting.body());
                for (String check : List.of("kubernetes-api", "kafka", "rebuild", "ingest")) {
                    assertTrue(starting.body().contains("{\"name\":\"" + check + "\",\"status\":\"DOWN\"}"), starting.body());
                }

                pipeline.start(DEADLINE);
                metrics.bind(pipeline);
                started.set(pipeline);
                await(DEADLINE, () -> {
                    try {
                        return get(port, "/q/health/ready").statusCode() == 200;
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
                await(DEADLINE, () -> pipeline.aggregator().deadLetters().sent(DeadLetters.Reason.NOT_JSON) == 1, () -> "not dead-lettered");

                HttpResponse<String> scraped = get(port, "/q/metrics");
                assertEquals(200, scraped.statusCode());
                String text = scraped.body();
                assertTrue(sample(text, "aggregator_events_ingested_total") >= 3, "ingested");
                assertTrue(sample(text, "aggregator_events_consumed_total") >= 3, "consumed");
                assertTrue(sample(text, "aggregator_computations_total") >= 2, "computations");
                assertTrue(sample(text, "aggregator_consumer_lag") >= 0, "lag");
                assertTrue(sample(text, "aggregator_coalescing_ratio") > 0, "coalescing ratio");
                assertEquals(1, sample(text, "aggregator_clusters_tracked"));
                assertEquals(1, sample(text, "aggregator_ingesting"));
                assertTrue(text.contains("aggregator_status_writes_seconds_count{outcome=\"written\"}"), text);
                assertTrue(sample(text, "aggregator_status_writes_seconds_count") >= 2, "writes counted");
                assertTrue(sample(text, "aggregator_status_writes_seconds_max") > 0, "write latency");
                assertEquals(1, sample(text, "aggregator_dead_letters_total{reason=\"not-json\"}"), "dead letters by reason");
                for (String reason : List.of("unknown-key", "unknown-kind", "malformed-object")) {
                    assertEquals(0, sample(text, "aggregator_dead_letters_total{reason=\"" + reason + "\"}"), reason);
                }
                assertEquals(0, sample(text, "aggregator_dead_letter_failures_total"), "dead letters not sent");
            }
        }
    }
}
