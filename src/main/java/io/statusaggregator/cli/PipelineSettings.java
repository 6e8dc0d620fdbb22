package io.statusaggregator.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.statusaggregator.AggregatorConfig;
import io.statusaggregator.Pipeline;
import io.statusaggregator.aggregation.Aggregator;
import io.statusaggregator.ingest.CniObserver;
import io.statusaggregator.ingest.IngestLeadership;
import io.statusaggregator.ingest.ObjectIngest;
import io.statusaggregator.kubernetes.ApiVersionChoice;
import io.statusaggregator.writeback.StatusWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@code run}'s pipeline settings, each stage's from its part of the configuration ({@code aggregator.*}). */
final class PipelineSettings {
    private PipelineSettings() {
    }

    /**
     * @param kafka    the Kafka clients' settings, the embedded broker's address among them where it runs
     * @param embedded whether the embedded default runs: its one broker takes a replication factor of 1
     * @param client   the API server, whose namespace the ingest Lease defaults to
     */
    static Pipeline.Settings of(AggregatorConfig config, Map<String, Object> kafka, boolean embedded,
            KubernetesClient client) {
        AggregatorConfig.Topics topics = config.topics();
        return new Pipeline.Settings(
                kafka,
                topics.objectStates(),
                topics.statuses(),
                topics.transitions(),
                topics.deadLetters(),
                topics.create(),
                topics.partitions(),
                embedded ? 1 : topics.replicationFactor(),
                config.groupId(),
                config.ingest().enabled(),
                ingest(config),
                aggregation(config),
                new StatusWriter.Settings(
                        config.write().concurrency(),
                        config.write().initialBackoff(),
                        config.write().maxBackoff()),
                new CniObserver.Settings(
                        config.capiNamespace(),
                        config.cni().maxConnections(),
                        config.cni().staleAfter(),
                        config.cni().checkInterval(),
                        config.cni().requestTimeout()),
                config.compatibilityConfigMap(),
                config.ingest().leaderElection() ? Optional.of(lease(config, client)) : Optional.empty());
    }

    private static ObjectIngest.Settings ingest(AggregatorConfig config) {
        return new ObjectIngest.Settings(
                config.capiNamespace(),
                config.clusterNamespaces().orElse(List.of()),
                config.ingest().relistStalledAfter(),
                config.ingest().reconcileEvery(),
                config.ingest().stuckSendAfter(),
                ApiVersionChoice.Setting.parse(config.capi().apiVersion())
                        .orElseThrow(),
                config.capi().versionCheckEvery());
    }

    private static Aggregator.Settings aggregation(AggregatorConfig config) {
        return new Aggregator.Settings(
                config.topics().objectStates(),
                config.coalescingWindow(),
                config.longestCoalescingWindow(),
                config.echoTimeout(),
                config.rebuildRehearsal(),
                config.capiNamespace(),
                config.status().writer(),
                config.status().stepAsideWindow());
    }

    /** This replica's part in the ingest election: named after its pod (HOSTNAME in Kubernetes), unique per process. */
    private static IngestLeadership.Settings lease(AggregatorConfig config, KubernetesClient client) {
        AggregatorConfig.Ingest.Lease lease = config.ingest().lease();
        String host = Optional.ofNullable(System.getenv("HOSTNAME")).filter(h -> !h.isBlank()).orElse("localhost");
        String namespace = lease.namespace().or(() -> Optional.ofNullable(client.getNamespace())).orElse("default");
        return new IngestLeadership.Settings(namespace, lease.name(), host + "-" + ProcessHandle.current().pid(),
                lease.duration(), lease.renewDeadline(), lease.retryPeriod());
    }
}
