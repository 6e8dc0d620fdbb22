package io.statusaggregator.operations;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.statusaggregator.ingest.ObjectIngest;
import io.statusaggregator.model.ObjectKind;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.statusaggregator.Pipeline;
import io.statusaggregator.aggregation.Aggregator;
import io.statusaggregator.aggregation.DeadLetters;
import io.statusaggregator.aggregation.DeadLetterReason;
import io.statusaggregator.ingest.ObjectStatePublisher;
import io.statusaggregator.writeback.StatusWriter;
import java.time.Duration;

/**
 * The pipeline's Prometheus metrics: what each stage has done, read from its own counters when scraped, and the
 * status writes timed by outcome as they happen.
 */
public final class PipelineMetrics implements StatusWriter.Observer {
    private final MeterRegistry registry;

    public PipelineMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Registers the meters that read the running pipeline. */
    public void bind(Pipeline pipeline) {
        FunctionCounter.builder("aggregator_events_ingested", this, metrics -> ObjectStatePublisher.sent())
                .description("Object states and tombstones ingest sent to the object-state topic").register(registry);
        Aggregator aggregator = pipeline.aggregator();
        FunctionCounter.builder("aggregator_events_consumed", aggregator, Aggregator::events)
                .description("Object-state records aggregation read").register(registry);
        FunctionCounter.builder("aggregator_computations", aggregator, Aggregator::computations)
                .description("Status computations").register(registry);
        FunctionCounter.builder("aggregator_computation_failures", aggregator, Aggregator::computationFailures)
                .description(
                        "Status computations that failed on a fault, a bug: logged with the cluster; the others go on")
                .register(registry);
        FunctionCounter.builder(
                        "aggregator_busy_seconds", aggregator, a -> a.busy().toNanos() / 1e9)
                .description("Time the aggregation thread spent outside its polls, on the records they returned and the"
                        + " computations those made: its rate is how busy the thread is (a poll's own work is not"
                        + " counted)")
                .register(registry);
        Gauge.builder("aggregator_consumer_lag", aggregator, Aggregator::lag)
                .description("Object-state records of the assigned partitions not read yet").register(registry);
        Gauge.builder(
                        "aggregator_coalescing_ratio",
                        aggregator,
                        a -> a.computations() == 0 ? 0 : (double) a.events() / a.computations())
                .description("Records read per computation: how much the coalescing window gathers")
                .register(registry);
        Gauge.builder("aggregator_coalescing_window_seconds", aggregator, a -> a.coalescingWindow().toNanos() / 1e9)
                .description("How long a cluster's first record waits for the next before the cluster is computed: "
                        + "aggregator.coalescing-window, longer while records wait to be read").register(registry);
        Gauge.builder("aggregator_clusters_tracked", aggregator, Aggregator::clustersTracked)
                .description("Clusters this instance aggregates").register(registry);
        Gauge.builder("aggregator_status_stepped_aside_clusters", aggregator, Aggregator::steppedAside)
                .description("Clusters this instance aggregates whose status it no longer writes: another writer "
                        + "(EKS-A's controller) keeps setting it").register(registry);
        DeadLetters deadLetters = aggregator.deadLetters();
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            FunctionCounter.builder("aggregator_dead_letters", deadLetters, d -> d.sent(reason))
                    .description(
                            "Object-state records aggregation could not use, sent to the dead-letter topic, by reason")
                    .tag("reason", reason.code())
                    .register(registry);
        }
        FunctionCounter.builder("aggregator_dead_letter_failures", deadLetters, DeadLetters::failed)
                .description("Dead letters that could not be sent (logged with their partition and offset)")
                .register(registry);
        Gauge.builder("aggregator_ingesting", pipeline, p -> p.ingesting() ? 1 : 0)
                .description("1 when this instance holds the ingest lease and feeds the topic").register(registry);
        for (ObjectKind kind : ObjectIngest.CAPI_KINDS) {
            for (String version : kind.versions()) {
                Gauge.builder("aggregator_capi_api_version_info", pipeline,
                                p -> version.equals(p.capiVersions().get(kind)) ? 1 : 0)
                        .description("1 for the API version ingest reads each Cluster API kind at, 0 for the others")
                        .tag("kind", kind.kind()).tag("version", version).register(registry);
            }
        }
    }

    /** {@code aggregator_status_writes_seconds{outcome}}: its count is the number of writes by outcome. */
    @Override
    public void attempted(String outcome, Duration took) {
        Timer.builder("aggregator_status_writes")
                .description("Status writes to the Cluster's status subresource, by outcome")
                .tag("outcome", outcome)
                .register(registry)
                .record(took);
    }
}
