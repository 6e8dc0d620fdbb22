package io.statusaggregator.operations;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.statusaggregator.Pipeline;
import io.vertx.ext.web.Router;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Health and metrics for Kubernetes probes and Prometheus, at Quarkus' usual paths: {@code /q/health/live},
 * {@code /q/health/ready} (503 until the API server has been listed, Kafka is connected, the partitions are rebuilt
 * and, where this replica ingests, its informers have synced) and {@code /q/metrics}.
 */
public final class OperationsRoutes {
    private final Supplier<Pipeline> pipeline;
    private final PrometheusMeterRegistry registry;

    /** @param pipeline the running pipeline; null before it is started, which reads as not ready */
    public OperationsRoutes(Supplier<Pipeline> pipeline, PrometheusMeterRegistry registry) {
        this.pipeline = pipeline;
        this.registry = registry;
    }

    /** Each check by name, in the order they become true at start. */
    Map<String, Boolean> checks() {
        Pipeline running = pipeline.get();
        Map<String, BooleanSupplier> checks = new LinkedHashMap<>();
        checks.put("kubernetes-api", () -> running.apiSynced());
        checks.put("kafka", () -> running.aggregator().connected());
        checks.put("rebuild", () -> running.aggregator().live());
        checks.put("ingest", () -> running.ingestSynced());
        Map<String, Boolean> results = new LinkedHashMap<>();
        checks.forEach((name, check) -> results.put(name, running != null && running.aggregator() != null && check.getAsBoolean()));
        return results;
    }

    public void addTo(Router router) {
        router.get("/q/health/live").handler(context -> context.response().putHeader("content-type", "application/json")
                .end("{\"status\":\"UP\",\"checks\":[]}"));
        router.get("/q/health/ready").handler(context -> {
            Map<String, Boolean> checks = checks();
            boolean up = checks.values().stream().allMatch(Boolean::booleanValue);
            ObjectNode body = JsonNodeFactory.instance.objectNode().put("status", up ? "UP" : "DOWN");
            ArrayNode list = body.putArray("checks");
            checks.forEach((name, ok) -> list.addObject().put("name", name).put("status", ok ? "UP" : "DOWN"));
            context.response().setStatusCode(up ? 200 : 503).putHeader("content-type", "application/json").end(body.toString());
        });
        router.get("/q/metrics").handler(context -> context.response()
                .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8").end(registry.scrape()));
    }
}
