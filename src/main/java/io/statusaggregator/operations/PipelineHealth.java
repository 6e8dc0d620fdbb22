package io.statusaggregator.operations;

import io.smallrye.health.api.Wellness;
import io.statusaggregator.Pipeline;
import io.statusaggregator.RunningPipeline;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.util.Optional;
import java.util.function.Predicate;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;
import org.eclipse.microprofile.health.Startup;

/**
 * Health on the management interface. Startup ({@code /q/health/started}): the pipeline has started, Kafka and the
 * API server answered. Readiness ({@code /q/health/ready}): DOWN until then, then one check per condition, in the
 * order they become true at start: the API server listed, the partitions rebuilt, the status topic's version history
 * read (for the admission webhook) and, where this replica holds the
 * ingest lease, its informers synced; and {@code ingest-sends}, DOWN with the reason while an object's state has been
 * refused by the broker or the producer for longer than {@code aggregator.ingest.stuck-send-after} (a record too
 * large for the topic, a topic this user may not write), UP again once it is sent.
 * Whether Kafka is connected now is a wellness check ({@code /q/health/well}), not
 * readiness: readiness decides which replicas the Service sends requests to, and the admission webhook and the upgrade
 * check need no broker; a broker outage taking every replica out of the Service would let Cluster edits through
 * unchecked (the webhook's {@code failurePolicy: Ignore}). Liveness ({@code /q/health/live}) is SmallRye Health's own:
 * UP while the process serves.
 */
@ApplicationScoped
public class PipelineHealth {
    private final RunningPipeline running;

    PipelineHealth(RunningPipeline running) {
        this.running = running;
    }

    @Produces
    @Startup
    HealthCheck started() {
        return check("pipeline", pipeline -> true);
    }

    @Produces
    @Readiness
    HealthCheck kubernetesApi() {
        return check("kubernetes-api", Pipeline::apiSynced);
    }

    @Produces
    @Wellness
    HealthCheck kafka() {
        return check("kafka", pipeline -> pipeline.aggregator().connected());
    }

    @Produces
    @Readiness
    HealthCheck rebuild() {
        return check("rebuild", pipeline -> pipeline.aggregator().live());
    }

    /**
     * The admission webhook judges a cluster whose Cluster shows no {@code status.versions} (EKS-A's own CRD) from the
     * history on the status topic: a replica takes reviews once it has read it.
     */
    @Produces
    @Readiness
    HealthCheck versionHistory() {
        return check("version-history", pipeline -> pipeline.versionHistory().caughtUp());
    }

    @Produces
    @Readiness
    HealthCheck ingest() {
        return check("ingest", Pipeline::ingestSynced);
    }

    @Produces
    @Readiness
    HealthCheck ingestSends() {
        return () -> {
            Optional<Pipeline> pipeline = running.get().filter(started -> started.aggregator() != null);
            Optional<String> stuck = pipeline.flatMap(Pipeline::ingestStuck);
            HealthCheckResponseBuilder response = HealthCheckResponse.named("ingest-sends")
                    .status(pipeline.isPresent() && stuck.isEmpty());
            stuck.ifPresent(reason -> response.withData("reason", reason));
            return response.build();
        };
    }

    /**
     * The API version ingest reads each Cluster API kind at (data, {@code Kind.group}: version); DOWN with the reason
     * while a kind is served at no version ingest reads, or not at the one {@code aggregator.capi.api-version} forces.
     */
    @Produces
    @Readiness
    HealthCheck capiVersions() {
        return () -> {
            Optional<Pipeline> pipeline = running.get().filter(started -> started.aggregator() != null);
            Optional<String> problem = pipeline.flatMap(Pipeline::capiVersionProblem);
            HealthCheckResponseBuilder response = HealthCheckResponse.named("capi-versions")
                    .status(pipeline.isPresent() && problem.isEmpty());
            pipeline.ifPresent(p -> p.capiVersions()
                    .forEach((kind, version) -> response.withData(kind.qualifiedName(), version)));
            problem.ifPresent(reason -> response.withData("reason", reason));
            return response.build();
        };
    }

    private HealthCheck check(String name, Predicate<Pipeline> up) {
        return () -> HealthCheckResponse.named(name)
                .status(running.get()
                        .filter(pipeline -> pipeline.aggregator() != null && up.test(pipeline))
                        .isPresent())
                .build();
    }
}
