package io.statusaggregator.operations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.statusaggregator.aggregation.ClusterObserver.Shown;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Cni;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.EksaClusterSpec;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Severity;
import io.statusaggregator.model.WorkerNodeGroup;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The per-cluster metrics' shell on Micrometer's Prometheus registry behind a composite, as Quarkus has it: the series
 * appear in the Prometheus text with their help and type, a value changes in place, and a cluster that leaves takes
 * its series out of the text, also from the Prometheus registry behind the composite. The registry's work is done
 * on the calling thread here; {@code PerClusterMetricsTest} has it on its own.
 */
class ClusterMetricsTest {
    private static final ObjectKey ALPHA = new ObjectKey("default", "alpha");
    private static final Instant SINCE = Instant.parse("2026-11-20T10:00:00Z");

    private final PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final CompositeMeterRegistry composite = new CompositeMeterRegistry();
    private final ClusterMetrics metrics = new ClusterMetrics(composite, Runnable::run);

    ClusterMetricsTest() {
        composite.add(prometheus);
    }

    @Test
    void seriesAppearChangeInPlaceAndLeaveWithTheirCluster() {
        metrics.shows(shown(ConditionStatus.FALSE, Severity.WARNING));
        String text = prometheus.scrape();
        assertTrue(text.contains("# TYPE eksa_cluster_status_condition gauge"), text);
        assertTrue(text.contains("# HELP eksa_cluster_status_condition The EKS-A Cluster's status conditions"), text);
        assertTrue(text.contains("eksa_cluster_status_condition{name=\"alpha\",namespace=\"default\",status=\"False\",type=\"Ready\",} 1.0"), text);
        assertTrue(text.contains("eksa_cluster_status_condition{name=\"alpha\",namespace=\"default\",status=\"True\",type=\"Ready\",} 0.0"), text);
        assertTrue(text.contains("eksa_cluster_status_condition_severity{name=\"alpha\",namespace=\"default\",severity=\"Warning\",type=\"Ready\",} 1.0"), text);
        assertTrue(text.contains("eksa_cluster_status_condition_last_transition_time_seconds{name=\"alpha\",namespace=\"default\",status=\"False\",type=\"Ready\",} 1.7951688E9"), text);
        assertTrue(text.contains("eksa_cluster_info{cni=\"cilium\",eksa_version=\"v0.23.1\",kubernetes_version=\"1.31\",name=\"alpha\",namespace=\"default\",} 1.0"), text);
        assertTrue(text.contains("eksa_cluster_worker_group_replicas_desired{name=\"alpha\",namespace=\"default\",worker_group=\"md-0\",} 2.0"), text);
        int gauges = metrics.exported();
        assertEquals(ClusterSeries.seriesOf(shown(ConditionStatus.FALSE, Severity.WARNING)).size(), gauges);

        metrics.shows(shown(ConditionStatus.TRUE, Severity.NONE));
        text = prometheus.scrape();
        assertTrue(text.contains("eksa_cluster_status_condition{name=\"alpha\",namespace=\"default\",status=\"True\",type=\"Ready\",} 1.0"), text);
        assertTrue(text.contains("eksa_cluster_status_condition_severity{name=\"alpha\",namespace=\"default\",severity=\"Warning\",type=\"Ready\",} 0.0"), text);
        assertFalse(text.contains("eksa_cluster_status_condition_last_transition_time_seconds{name=\"alpha\",namespace=\"default\",status=\"False\""), text);
        assertEquals(gauges, metrics.exported(), "the transition series moved to the new status label: one out, one in");

        metrics.left(ALPHA);
        text = prometheus.scrape();
        assertFalse(text.contains("name=\"alpha\""), text);
        assertEquals(0, metrics.exported());
        assertTrue(composite.getMeters().isEmpty() && prometheus.getMeters().isEmpty(), "removed from both registries");

        metrics.shows(shown(ConditionStatus.TRUE, Severity.NONE));
        assertTrue(prometheus.scrape().contains("eksa_cluster_status_condition{name=\"alpha\",namespace=\"default\",status=\"True\",type=\"Ready\",} 1.0"),
                "back after a rebalance gave it back");
    }

    @Test
    void theMetricsThreadTakesTheNewestOfEachClusterOneDrainAtATime() {
        List<Runnable> drains = new java.util.ArrayList<>();
        ClusterMetrics later = new ClusterMetrics(composite, drains::add);
        later.shows(shown(ConditionStatus.FALSE, Severity.WARNING));
        later.shows(shown(ConditionStatus.TRUE, Severity.NONE));
        assertEquals(1, drains.size(), "one drain scheduled for both");
        assertFalse(later.caughtUp());
        assertTrue(prometheus.getMeters().isEmpty(), "nothing registered on the caller's thread");

        drains.remove(0).run();
        assertTrue(later.caughtUp());
        String text = prometheus.scrape();
        assertTrue(text.contains("eksa_cluster_status_condition{name=\"alpha\",namespace=\"default\",status=\"True\",type=\"Ready\",} 1.0"), text);
        assertFalse(text.contains("status=\"False\",type=\"Ready\",} 1.0"), "the older one was never exported: " + text);

        later.shows(shown(ConditionStatus.FALSE, Severity.WARNING));
        later.left(ALPHA);
        assertEquals(1, drains.size());
        drains.remove(0).run();
        assertTrue(prometheus.getMeters().isEmpty(), "left last: gone");
        assertEquals(0, later.exported());
    }

    private static Shown shown(ConditionStatus ready, Severity severity) {
        EksaClusterSpec spec = new EksaClusterSpec(1, List.of(new WorkerNodeGroup("md-0", 2, Optional.empty(), Optional.empty())),
                KubernetesVersion.parseSpec("1.31"), Optional.of("v0.23.1"), Optional.empty(), false,
                new EksaClusterSpec.CniConfig(Cni.CILIUM, false), Optional.empty());
        ClusterStatus status = new ClusterStatus(3, Optional.empty(), Optional.empty(),
                List.of(new Condition(ConditionType.READY, ready, "", "", severity, SINCE)),
                List.of(new ClusterStatus.WorkerNodeGroupStatus("md-0", Optional.empty(), 2, 2, 2)), ClusterStatus.Versions.NONE);
        return new Shown(ALPHA, 3, Optional.of(spec), status);
    }
}
