package io.statusaggregator.operations;

import io.statusaggregator.model.Pure;
import io.statusaggregator.aggregation.ClusterObserver;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Severity;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pure core of the per-cluster metrics: which series each cluster has, from what it shows ({@link ClusterMetric}),
 * and what to change in the exported series when a cluster shows something else or leaves this instance. Records in,
 * changes out; no Micrometer type ({@link ClusterMetrics} carries the changes out). One thread, the aggregation's.
 *
 * <p>It keeps what each cluster showed last, so that a cluster showing the same again (every computation tells it)
 * costs a comparison, and a change sets only the series whose value changed and removes the ones that no longer exist
 * (a condition's series under its old status label, the info series of the old versions).
 */
@Pure
public final class ClusterSeries {
    /** One series: a metric and its label values, in the order of the metric's labels. */
    public record Series(ClusterMetric metric, List<String> labels) {
        public Series {
            labels = List.copyOf(labels);
            if (labels.size() != metric.labels().size()) {
                throw new IllegalArgumentException(metric + " has the labels " + metric.labels() + ", given " + labels);
            }
        }
    }

    /** A change to the exported series. */
    public sealed interface Change {
    }

    /** Export {@code series} with {@code value}: a new series, or a new value. */
    public record SetTo(Series series, double value) implements Change {
    }

    /** Export {@code series} no more. */
    public record Remove(Series series) implements Change {
    }

    /** The severities a condition's severity series are labelled with, in order. */
    private static final List<Severity> SEVERITIES = List.of(Severity.ERROR, Severity.WARNING, Severity.INFO);

    /** What each exported cluster showed last. */
    private final Map<ObjectKey, ClusterObserver.Shown> shown = new HashMap<>();

    /** A cluster shows {@code cluster}: the changes that make its series say so. */
    public List<Change> shows(ClusterObserver.Shown cluster) {
        ClusterObserver.Shown before = shown.put(cluster.cluster(), cluster);
        if (cluster.equals(before)) {
            return List.of();
        }
        return changes(before == null ? Map.of() : seriesOf(before), seriesOf(cluster));
    }

    /** A cluster left this instance (deleted, or its partition moved): every series of it goes. */
    public List<Change> left(ObjectKey cluster) {
        ClusterObserver.Shown before = shown.remove(cluster);
        return before == null ? List.of() : changes(seriesOf(before), Map.of());
    }

    /** The clusters whose series are exported. */
    public int clusters() {
        return shown.size();
    }

    /** Every series of a cluster that shows {@code cluster}, with its value, in a stable order. */
    public static Map<Series, Double> seriesOf(ClusterObserver.Shown cluster) {
        String namespace = cluster.cluster().namespace();
        String name = cluster.cluster().name();
        ClusterStatus status = cluster.status();
        Map<Series, Double> series = new LinkedHashMap<>();
        for (Condition condition : status.conditions()) {
            String type = condition.type().wireName();
            for (ConditionStatus each : ConditionStatus.values()) {
                series.put(new Series(ClusterMetric.CONDITION, List.of(namespace, name, type, each.wireName())),
                        condition.status() == each ? 1.0 : 0.0);
            }
            series.put(
                    new Series(
                            ClusterMetric.CONDITION_LAST_TRANSITION,
                            List.of(namespace, name, type, condition.status().wireName())),
                    seconds(condition.lastTransitionTime()));
            for (Severity each : SEVERITIES) {
                series.put(
                        new Series(ClusterMetric.CONDITION_SEVERITY, List.of(namespace, name, type, each.wireName())),
                        condition.severity() == each ? 1.0 : 0.0);
            }
        }
        cluster.spec()
                .ifPresent(spec -> series.put(
                        new Series(
                                ClusterMetric.INFO,
                                List.of(
                                        namespace,
                                        name,
                                        spec.kubernetesVersion()
                                                .map(Object::toString)
                                                .orElse(""),
                                        spec.eksaVersion().orElse(""),
                                        spec.cni().cni().wireName())),
                        1.0));
        series.put(new Series(ClusterMetric.GENERATION, List.of(namespace, name)), (double) cluster.generation());
        series.put(new Series(ClusterMetric.OBSERVED_GENERATION, List.of(namespace, name)), (double)
                status.observedGeneration());
        for (ClusterStatus.WorkerNodeGroupStatus group : status.workerNodeGroups()) {
            series.put(new Series(ClusterMetric.WORKER_GROUP_READY, List.of(namespace, name, group.name())), (double)
                    group.readyReplicas());
        }
        // An autoscaled group's size is the autoscaler's to choose: no count of the spec says what it asks for.
        cluster.spec().ifPresent(spec -> spec.workerNodeGroups().stream()
                .filter(group -> group.autoscaling().isEmpty())
                .forEach(group -> series.put(
                        new Series(ClusterMetric.WORKER_GROUP_DESIRED, List.of(namespace, name, group.name())),
                        (double) group.count())));
        cluster.remoteConnection().ifPresent(up -> series.put(
                new Series(ClusterMetric.REMOTE_CONNECTION, List.of(namespace, name)), up ? 1.0 : 0.0));
        return series;
    }

    /** Removals first (series {@code now} lacks), then the series that are new or whose value changed. */
    private static List<Change> changes(Map<Series, Double> before, Map<Series, Double> now) {
        List<Change> changes = new ArrayList<>();
        before.keySet().stream()
                .filter(series -> !now.containsKey(series))
                .forEach(series -> changes.add(new Remove(series)));
        now.forEach((series, value) -> {
            Double was = before.get(series);
            if (was == null || Double.compare(was, value) != 0) {
                changes.add(new SetTo(series, value));
            }
        });
        return changes;
    }

    private static double seconds(Instant instant) {
        return instant.getEpochSecond() + instant.getNano() / 1e9;
    }
}
