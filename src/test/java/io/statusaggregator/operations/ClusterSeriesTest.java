package io.statusaggregator.operations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.aggregation.ClusterObserver.Shown;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ClusterStatus.WorkerNodeGroupStatus;
import io.statusaggregator.model.Cni;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.EksaClusterSpec;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Severity;
import io.statusaggregator.model.WorkerNodeGroup;
import io.statusaggregator.operations.ClusterSeries.Change;
import io.statusaggregator.operations.ClusterSeries.Remove;
import io.statusaggregator.operations.ClusterSeries.Series;
import io.statusaggregator.operations.ClusterSeries.SetTo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The per-cluster metrics' core without a registry: what a cluster shows in, the series to set and remove out. Series
 * are written as Prometheus shows them, {@code name{label="value",...} value}.
 */
class ClusterSeriesTest {
    private static final ObjectKey ALPHA = new ObjectKey("default", "alpha");
    private static final Instant CREATED = Instant.parse("2026-11-20T10:00:00Z");
    private static final Instant LATER = Instant.parse("2026-11-20T10:05:30.250Z");

    private final ClusterSeries series = new ClusterSeries();

    @Test
    void aReadyClusterHasEverySeriesOfEveryMetricWithItsValue() {
        List<Change> changes = series.shows(ready(ALPHA, 3));
        assertTrue(changes.stream().allMatch(SetTo.class::isInstance), "a new cluster: only series to set");
        List<String> expected = new ArrayList<>();
        for (String type : List.of("ControlPlaneInitialized", "ControlPlaneReady", "WorkersReady", "DefaultCNIConfigured", "Ready")) {
            expected.addAll(List.of(
                    "eksa_cluster_status_condition{namespace=\"default\",name=\"alpha\",type=\"" + type + "\",status=\"True\"} 1.0",
                    "eksa_cluster_status_condition{namespace=\"default\",name=\"alpha\",type=\"" + type + "\",status=\"False\"} 0.0",
                    "eksa_cluster_status_condition{namespace=\"default\",name=\"alpha\",type=\"" + type + "\",status=\"Unknown\"} 0.0",
                    "eksa_cluster_status_condition_last_transition_time_seconds{namespace=\"default\",name=\"alpha\",type=\"" + type
                            + "\",status=\"True\"} 1.7951688E9",
                    "eksa_cluster_status_condition_severity{namespace=\"default\",name=\"alpha\",type=\"" + type + "\",severity=\"Error\"} 0.0",
                    "eksa_cluster_status_condition_severity{namespace=\"default\",name=\"alpha\",type=\"" + type + "\",severity=\"Warning\"} 0.0",
                    "eksa_cluster_status_condition_severity{namespace=\"default\",name=\"alpha\",type=\"" + type + "\",severity=\"Info\"} 0.0"));
        }
        expected.addAll(List.of(
                "eksa_cluster_info{namespace=\"default\",name=\"alpha\",kubernetes_version=\"1.31\",eksa_version=\"v0.23.1\",cni=\"cilium\"} 1.0",
                "eksa_cluster_generation{namespace=\"default\",name=\"alpha\"} 3.0",
                "eksa_cluster_observed_generation{namespace=\"default\",name=\"alpha\"} 3.0",
                "eksa_cluster_worker_group_replicas_ready{namespace=\"default\",name=\"alpha\",worker_group=\"md-0\"} 2.0",
                "eksa_cluster_worker_group_replicas_ready{namespace=\"default\",name=\"alpha\",worker_group=\"md-1\"} 1.0",
                "eksa_cluster_worker_group_replicas_desired{namespace=\"default\",name=\"alpha\",worker_group=\"md-0\"} 2.0",
                "eksa_cluster_worker_group_replicas_desired{namespace=\"default\",name=\"alpha\",worker_group=\"md-1\"} 1.0"));
        assertEquals(expected, text(changes));
        assertEquals(1, series.clusters());
    }

    @Test
    void perClusterSeriesAre38PlusTwoPerWorkerNodeGroupAsDocumented() {
        // docs/deploy.md: 15 condition + 5 transition + 15 severity + 1 info + 2 generations, and per group ready and desired.
        assertEquals(38 + 2 * 2, ClusterSeries.seriesOf(ready(ALPHA, 3)).size());
        Shown oneGroup = new Shown(ALPHA, 3, Optional.of(spec("1.31", group("md-0", 2))), status(3, ConditionStatus.TRUE, Severity.NONE, CREATED,
                new WorkerNodeGroupStatus("md-0", Optional.empty(), 2, 2, 2)));
        assertEquals(40, ClusterSeries.seriesOf(oneGroup).size());
    }

    @Test
    void showingTheSameAgainChangesNothing() {
        series.shows(ready(ALPHA, 3));
        assertEquals(List.of(), series.shows(ready(ALPHA, 3)));
    }

    @Test
    void aConditionChangingStatusFlipsItsThreeSeriesAndMovesItsTransitionTimeToTheNewStatusLabel() {
        series.shows(ready(ALPHA, 3));
        Shown notReady = new Shown(ALPHA, 3, ready(ALPHA, 3).spec(), withReady(ready(ALPHA, 3).status(),
                new Condition(ConditionType.READY, ConditionStatus.FALSE, "MachineDeploymentNotReady", "Machine deployment alpha-md-0 not ready yet",
                        Severity.ERROR, LATER)));
        assertEquals(List.of(
                "remove eksa_cluster_status_condition_last_transition_time_seconds{namespace=\"default\",name=\"alpha\",type=\"Ready\",status=\"True\"}",
                "eksa_cluster_status_condition{namespace=\"default\",name=\"alpha\",type=\"Ready\",status=\"True\"} 0.0",
                "eksa_cluster_status_condition{namespace=\"default\",name=\"alpha\",type=\"Ready\",status=\"False\"} 1.0",
                "eksa_cluster_status_condition_last_transition_time_seconds{namespace=\"default\",name=\"alpha\",type=\"Ready\",status=\"False\"} 1.79516913025E9",
                "eksa_cluster_status_condition_severity{namespace=\"default\",name=\"alpha\",type=\"Ready\",severity=\"Error\"} 1.0"),
                text(series.shows(notReady)));

        Shown unknown = new Shown(ALPHA, 3, notReady.spec(), withReady(notReady.status(),
                new Condition(ConditionType.READY, ConditionStatus.UNKNOWN, "OutdatedInformation", "", Severity.INFO, LATER.plusSeconds(1))));
        assertEquals(List.of(
                "remove eksa_cluster_status_condition_last_transition_time_seconds{namespace=\"default\",name=\"alpha\",type=\"Ready\",status=\"False\"}",
                "eksa_cluster_status_condition{namespace=\"default\",name=\"alpha\",type=\"Ready\",status=\"False\"} 0.0",
                "eksa_cluster_status_condition{namespace=\"default\",name=\"alpha\",type=\"Ready\",status=\"Unknown\"} 1.0",
                "eksa_cluster_status_condition_last_transition_time_seconds{namespace=\"default\",name=\"alpha\",type=\"Ready\",status=\"Unknown\"} 1.79516913125E9",
                "eksa_cluster_status_condition_severity{namespace=\"default\",name=\"alpha\",type=\"Ready\",severity=\"Error\"} 0.0",
                "eksa_cluster_status_condition_severity{namespace=\"default\",name=\"alpha\",type=\"Ready\",severity=\"Info\"} 1.0"),
                text(series.shows(unknown)));
    }

    @Test
    void aNewReasonOrMessageAloneChangesNoSeries() {
        series.shows(ready(ALPHA, 3));
        Condition scaling = new Condition(ConditionType.READY, ConditionStatus.FALSE, "ScalingUp", "1 of 2", Severity.INFO, LATER);
        series.shows(new Shown(ALPHA, 3, ready(ALPHA, 3).spec(), withReady(ready(ALPHA, 3).status(), scaling)));
        Condition rolling = new Condition(ConditionType.READY, ConditionStatus.FALSE, "RollingUpgradeInProgress", "2 upgrading", Severity.INFO, LATER);
        assertEquals(List.of(), series.shows(new Shown(ALPHA, 3, ready(ALPHA, 3).spec(), withReady(ready(ALPHA, 3).status(), rolling))),
                "reasons are not labels: the series hold still");
    }

    @Test
    void aSpecChangeReplacesTheInfoSeriesAndSetsTheGenerationAheadOfTheObservedOne() {
        series.shows(ready(ALPHA, 3));
        Shown upgrading = new Shown(ALPHA, 4, Optional.of(spec("1.32", group("md-0", 2), group("md-1", 1))), ready(ALPHA, 3).status());
        assertEquals(List.of(
                "remove eksa_cluster_info{namespace=\"default\",name=\"alpha\",kubernetes_version=\"1.31\",eksa_version=\"v0.23.1\",cni=\"cilium\"}",
                "eksa_cluster_info{namespace=\"default\",name=\"alpha\",kubernetes_version=\"1.32\",eksa_version=\"v0.23.1\",cni=\"cilium\"} 1.0",
                "eksa_cluster_generation{namespace=\"default\",name=\"alpha\"} 4.0"),
                text(series.shows(upgrading)));
    }

    @Test
    void aClusterWithoutAStatusYetHasItsGenerationsInfoAndDesiredCountsOnly() {
        Shown fresh = new Shown(ALPHA, 1, Optional.of(spec("1.31", group("md-0", 2))), ClusterStatus.NONE);
        assertEquals(List.of(
                "eksa_cluster_info{namespace=\"default\",name=\"alpha\",kubernetes_version=\"1.31\",eksa_version=\"v0.23.1\",cni=\"cilium\"} 1.0",
                "eksa_cluster_generation{namespace=\"default\",name=\"alpha\"} 1.0",
                "eksa_cluster_observed_generation{namespace=\"default\",name=\"alpha\"} 0.0",
                "eksa_cluster_worker_group_replicas_desired{namespace=\"default\",name=\"alpha\",worker_group=\"md-0\"} 2.0"),
                text(series.shows(fresh)));
    }

    @Test
    void aSpecThatCannotBeReadHasNeitherInfoNorDesiredSeries() {
        series.shows(ready(ALPHA, 3));
        Shown unreadable = new Shown(ALPHA, 4, Optional.empty(), ready(ALPHA, 3).status());
        assertEquals(List.of(
                "remove eksa_cluster_info{namespace=\"default\",name=\"alpha\",kubernetes_version=\"1.31\",eksa_version=\"v0.23.1\",cni=\"cilium\"}",
                "remove eksa_cluster_worker_group_replicas_desired{namespace=\"default\",name=\"alpha\",worker_group=\"md-0\"}",
                "remove eksa_cluster_worker_group_replicas_desired{namespace=\"default\",name=\"alpha\",worker_group=\"md-1\"}",
                "eksa_cluster_generation{namespace=\"default\",name=\"alpha\"} 4.0"),
                text(series.shows(unreadable)));
    }

    @Test
    void anAutoscaledGroupHasItsReadyNodesButNoDesiredCountAndMissingVersionsAreEmptyLabels() {
        WorkerNodeGroup autoscaled = new WorkerNodeGroup("md-auto", 1, Optional.of(new WorkerNodeGroup.Autoscaling(1, 5)), Optional.empty());
        EksaClusterSpec spec = new EksaClusterSpec(1, List.of(autoscaled), Optional.empty(), Optional.empty(), Optional.of("bundles-1"), false,
                new EksaClusterSpec.CniConfig(Cni.KINDNETD, false), Optional.empty());
        Shown shown = new Shown(ALPHA, 2, Optional.of(spec), new ClusterStatus(2, Optional.empty(), Optional.empty(), List.of(),
                List.of(new WorkerNodeGroupStatus("md-auto", Optional.empty(), 3, 3, 3)), ClusterStatus.Versions.NONE));
        assertEquals(List.of(
                "eksa_cluster_info{namespace=\"default\",name=\"alpha\",kubernetes_version=\"\",eksa_version=\"\",cni=\"kindnetd\"} 1.0",
                "eksa_cluster_generation{namespace=\"default\",name=\"alpha\"} 2.0",
                "eksa_cluster_observed_generation{namespace=\"default\",name=\"alpha\"} 2.0",
                "eksa_cluster_worker_group_replicas_ready{namespace=\"default\",name=\"alpha\",worker_group=\"md-auto\"} 3.0"),
                text(series.shows(shown)));
    }

    @Test
    void aClusterThatLeavesTakesEverySeriesWithItAndMayComeBack() {
        int count = series.shows(ready(ALPHA, 3)).size();
        List<Change> gone = series.left(ALPHA);
        assertEquals(count, gone.size());
        assertTrue(gone.stream().allMatch(Remove.class::isInstance), gone.toString());
        assertEquals(ClusterSeries.seriesOf(ready(ALPHA, 3)).keySet(), gone.stream().map(c -> ((Remove) c).series())
                .collect(java.util.stream.Collectors.toSet()));
        assertEquals(0, series.clusters());
        assertEquals(List.of(), series.left(ALPHA), "gone already");
        assertEquals(List.of(), series.left(new ObjectKey("default", "never-shown")));
        assertEquals(count, series.shows(ready(ALPHA, 3)).size(), "back: every series again");
    }

    @Test
    void theRemoteConnectionIsOneSeriesWhereTheCapiClusterSaysAndGoesWhenItNoLongerDoes() {
        Shown ready = ready(ALPHA, 3);
        series.shows(ready);
        String up = "eksa_cluster_remote_connection_up{namespace=\"default\",name=\"alpha\"}";
        Shown reached = new Shown(ALPHA, 3, ready.spec(), ready.status(), Optional.of(true));
        assertEquals(List.of(up + " 1.0"), text(series.shows(reached)), "RemoteConnectionProbe True: 1");
        Shown lost = new Shown(ALPHA, 3, ready.spec(), ready.status(), Optional.of(false));
        assertEquals(List.of(up + " 0.0"), text(series.shows(lost)), "False: 0, the same series");
        assertEquals(List.of("remove " + up), text(series.shows(ready)),
                "no longer said (the CAPI Cluster deleting, read at v1beta1): the series goes rather than keep its "
                        + "last value");
        series.shows(lost);
        assertTrue(text(series.left(ALPHA)).contains("remove " + up), "it leaves with its cluster");
        assertEquals(38 + 2 * 2 + 1, ClusterSeries.seriesOf(lost).size(),
                "one series more than documented for the cluster");
    }

    @Test
    void clustersAreIndependent() {
        ObjectKey bravo = new ObjectKey("other", "bravo");
        series.shows(ready(ALPHA, 3));
        List<Change> bravos = series.shows(ready(bravo, 1));
        assertTrue(text(bravos).stream().allMatch(line -> line.contains("namespace=\"other\",name=\"bravo\"")), text(bravos).toString());
        assertTrue(text(series.left(bravo)).stream().allMatch(line -> line.contains("name=\"bravo\"")));
        assertEquals(List.of(), series.shows(ready(ALPHA, 3)), "alpha unchanged");
        assertEquals(1, series.clusters());
    }

    @Test
    void aSeriesCarriesExactlyItsMetricsLabels() {
        for (ClusterMetric metric : ClusterMetric.values()) {
            assertEquals(List.of("namespace", "name"), metric.labels().subList(0, 2), metric.name());
            assertTrue(metric.metricName().startsWith("eksa_cluster_"), metric.metricName());
        }
        assertThrows(IllegalArgumentException.class, () -> new Series(ClusterMetric.GENERATION, List.of("default")));
    }

    // --- helpers

    /** A Ready cluster at {@code generation}: every condition True since {@link #CREATED}, two worker node groups. */
    private static Shown ready(ObjectKey cluster, long generation) {
        return new Shown(cluster, generation, Optional.of(spec("1.31", group("md-0", 2), group("md-1", 1))),
                status(generation, ConditionStatus.TRUE, Severity.NONE, CREATED,
                        new WorkerNodeGroupStatus("md-0", Optional.empty(), 2, 2, 2), new WorkerNodeGroupStatus("md-1", Optional.empty(), 1, 1, 1)));
    }

    private static WorkerNodeGroup group(String name, int count) {
        return new WorkerNodeGroup(name, count, Optional.empty(), Optional.empty());
    }

    private static EksaClusterSpec spec(String kubernetesVersion, WorkerNodeGroup... groups) {
        return new EksaClusterSpec(1, List.of(groups), KubernetesVersion.parseSpec(kubernetesVersion), Optional.of("v0.23.1"), Optional.empty(),
                false, new EksaClusterSpec.CniConfig(Cni.CILIUM, false), Optional.empty());
    }

    private static ClusterStatus status(long observedGeneration, ConditionStatus every, Severity severity, Instant since,
            WorkerNodeGroupStatus... groups) {
        List<Condition> conditions = Arrays.stream(ConditionType.values())
                .map(type -> new Condition(type, every, "", "", severity, since)).toList();
        return new ClusterStatus(observedGeneration, Optional.empty(), Optional.empty(), conditions, List.of(groups), ClusterStatus.Versions.NONE);
    }

    private static ClusterStatus withReady(ClusterStatus status, Condition ready) {
        List<Condition> conditions = status.conditions().stream().map(c -> c.type() == ConditionType.READY ? ready : c).toList();
        return new ClusterStatus(status.observedGeneration(), status.failure(), status.defaultCni(), conditions, status.workerNodeGroups(),
                status.versions());
    }

    /** Each change as Prometheus would show the series: {@code name{labels} value}, or {@code remove name{labels}}. */
    private static List<String> text(List<Change> changes) {
        return changes.stream().map(change -> change instanceof SetTo set ? text(set.series()) + " " + set.value()
                : "remove " + text(((Remove) change).series())).toList();
    }

    private static String text(Series series) {
        StringBuilder text = new StringBuilder(series.metric().metricName()).append('{');
        for (int i = 0; i < series.labels().size(); i++) {
            text.append(i == 0 ? "" : ",").append(series.metric().labels().get(i)).append("=\"").append(series.labels().get(i)).append('"');
        }
        return text.append('}').toString();
    }
}
