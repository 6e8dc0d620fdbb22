package io.statusaggregator.describe;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterTreeTest {
    private static final Instant NOW = Instant.parse("2026-11-25T10:00:00Z");

    private static List<JsonNode> objects() throws Exception {
        return objects("rolling");
    }

    private static List<JsonNode> objects(String fixture) throws Exception {
        try (InputStream in = ClusterTreeTest.class.getResourceAsStream("/describe/" + fixture + ".yaml")) {
            List<JsonNode> nodes = new ArrayList<>();
            new YAMLMapper().readValues(new YAMLMapper().getFactory().createParser(in), JsonNode.class).forEachRemaining(nodes::add);
            return nodes;
        }
    }

    private static String describe(boolean grouping, boolean all) throws Exception {
        List<JsonNode> objects = objects();
        return ClusterTree.render(ClusterTree.of(objects.get(0), objects.subList(1, objects.size()),
                new ClusterTree.Options(grouping, all), NOW));
    }

    @Test
    void aRollingClusterShowsWhereItStandsWithAlikeMachinesGrouped() throws Exception {
        assertEquals("""
                NAME                                   READY    SEVERITY  REASON                    SINCE  MESSAGE
                Cluster/alpha                          False    Info      RollingUpgradeInProgress  10m    Worker nodes not up-to-date yet, 2 upgrading (1 up to date)
                ├─ControlPlane
                │ └─KubeadmControlPlane/alpha          True                                         2h     1/1 ready, 1 up to date
                │   └─Machine/alpha-cp-1               True                                         2h     Running, v1.31.2, node healthy
                ├─Workers
                │ └─md-0 MachineDeployment/alpha-md-0  True                                         110m   3/3 ready, 1 up to date
                │   ├─Machine/alpha-md-0-a             True                                         5m     Running, v1.31.2, node healthy
                │   └─2 Machines...                    True                                         100m   Running, v1.30.6, node healthy
                ├─ExternalEtcd
                │ └─EtcdadmCluster/alpha-etcd          True
                └─CNI cilium                           True                                         115m
                """, describe(true, false), "the two Machines still on 1.30 are alike; the group is as old as its youngest");
    }

    @Test
    void aV1beta2ClusterShowsItsCountersWhatIsUnderWayWhatIsWrongAndThatItsApiIsUnreachable() throws Exception {
        List<JsonNode> objects = objects("v1beta2");
        assertEquals("""
                NAME                                   READY    SEVERITY  REASON                    SINCE  MESSAGE
                Cluster/bravo                          False    Info      RollingUpgradeInProgress  20m    Control plane nodes not up-to-date yet, 3 upgrading (1 up to date)
                ├─RemoteConnectionProbe                False    Error     ProbeFailed               7m     workload cluster's API unreachable from the management cluster: Remote connection probe failed, probe last succeeded at 2026-11-25T09:52:10Z
                ├─ControlPlane
                │ └─KubeadmControlPlane/bravo          True                                         2h     3/3 ready, 3 available, 1 up to date, 4 replicas
                │   ├─Condition MachinesUpToDate       False              NotUpToDate               20m    * Machines bravo-cp-a, bravo-cp-b, bravo-cp-c:
                │   │                                                                                        * Version v1.31.2, v1.32.1 required
                │   ├─Condition RollingOut             True     Info      RollingOut                20m    Rolling out 3 not up-to-date replicas
                │   │                                                                                      * Version v1.31.2, v1.32.1 required
                │   ├─3 Machines...                    True                                         2h     Running, v1.31.2, node healthy
                │   └─Machine/bravo-cp-d               False              NotReady                  5m     Provisioned, v1.32.1, no node yet
                │                                                                                          * NodeHealthy: Waiting for a Node with spec.providerID vsphere://4217 to exist
                │                                                                                          * InfrastructureReady: VSphereMachine is powering on
                ├─Workers
                │ └─md-0 MachineDeployment/bravo-md-0  True                                         110m   2/2 ready, 2 available, 2 up to date
                │   └─2 Machines...                    True                                         30m    Running, v1.32.1, node healthy
                └─CNI cilium                           True                                         115m
                """, ClusterTree.render(ClusterTree.of(objects.get(0), objects.subList(1, objects.size()),
                new ClusterTree.Options(true, false), NOW)),
                "v1beta2's counters (upToDateReplicas, availableReplicas; the surge as replicas beyond the desired 3); "
                        + "RollingOut True as activity (Info), MachinesUpToDate False, and no line for what is healthy "
                        + "(ControlPlaneComponentsHealthy True, ScalingUp False, the workers' RollingOut False); "
                        + "multi-line messages as lines; the lost API right under the Cluster");
    }

    @Test
    void theApiIsShownUnreachableOnlyOnceTheControlPlaneIsUpAndNotWhileTheClusterGoes() throws Exception {
        List<JsonNode> objects = objects("v1beta2");
        ObjectNode capiCluster = (ObjectNode) objects.get(1);
        assertEquals(1, unreachable(objects), "initialized, not deleting: said");

        ObjectNode status = (ObjectNode) capiCluster.path("status");
        status.remove("initialization");
        ArrayNode conditions = (ArrayNode) status.path("conditions");
        ((ObjectNode) conditions.get(1)).put("status", "False");
        assertEquals(0, unreachable(objects),
                "before the first connection CAPI says False, 'not established yet': no alarm");
        ((ObjectNode) conditions.get(1)).put("status", "True");
        assertEquals(1, unreachable(objects), "the ControlPlaneInitialized condition says so too");

        ((ObjectNode) conditions.get(4)).put("status", "True").put("reason", "Deleting");
        assertEquals(0, unreachable(objects), "a Cluster being deleted loses its API on purpose");
        ((ObjectNode) conditions.get(4)).put("status", "False");

        capiCluster.put("apiVersion", "cluster.x-k8s.io/v1beta1");
        assertEquals(0, unreachable(objects), "v1beta1 has no such condition: whatever is there is not read as it");
        capiCluster.put("apiVersion", "cluster.x-k8s.io/v1beta2");

        ((ObjectNode) conditions.get(2)).put("status", "True").put("reason", "ProbeSucceeded").remove("message");
        assertEquals(0, unreachable(objects), "reached");
        String all = ClusterTree.render(ClusterTree.of(objects.get(0), objects.subList(1, objects.size()),
                new ClusterTree.Options(true, true), NOW));
        assertEquals(List.of("├─Cluster.cluster.x-k8s.io/bravo", "│ └─Condition RollingOut"),
                all.lines().filter(l -> l.contains("Cluster.cluster") || l.startsWith("│ └─Condition"))
                        .map(l -> l.split("  ")[0]).toList(),
                "--all shows the CAPI Cluster and its conditions not healthy: RollingOut True, not Deleting or Paused "
                        + "False");
    }

    @Test
    void conditionsWhoseTrueIsNotHealthyAreShownWhenTrueAndRemediationAsAWarning() throws Exception {
        List<JsonNode> objects = objects("v1beta2");
        ObjectNode kcp = (ObjectNode) objects.get(2);
        ArrayNode conditions = (ArrayNode) kcp.path("status").path("conditions");
        ((ObjectNode) conditions.get(5)).put("status", "True").put("reason", "Remediating")
                .put("message", "Machine bravo-cp-b deleted by MachineHealthCheck");
        ((ObjectNode) conditions.get(6)).put("status", "True").put("reason", "Paused");
        ((ObjectNode) conditions.get(1)).put("status", "False").put("reason", "ControlPlaneComponentsNotHealthy")
                .put("message", "* Machine bravo-cp-b:\n  * APIServerPodHealthy: Pod is crashlooping");
        List<ClusterTree.Line> kcpConditions = ClusterTree.of(objects.get(0), objects.subList(1, objects.size()),
                new ClusterTree.Options(true, false), NOW).stream().filter(l -> l.name().startsWith("Condition "))
                .toList();
        assertEquals(List.of("Condition ControlPlaneComponentsHealthy False  ControlPlaneComponentsNotHealthy",
                        "Condition MachinesUpToDate False  NotUpToDate", "Condition RollingOut True Info RollingOut",
                        "Condition Remediating True Warning Remediating", "Condition Paused True Info Paused"),
                kcpConditions.stream().map(l -> l.name() + " " + l.ready() + " " + l.severity() + " " + l.reason())
                        .toList(),
                "in the object's order; healthy-when-True False as it is, True-is-not-healthy True with a severity");
        assertEquals("* Machine bravo-cp-b:\n  * APIServerPodHealthy: Pod is crashlooping",
                kcpConditions.get(0).message());
    }

    private static long unreachable(List<JsonNode> objects) {
        return ClusterTree.of(objects.get(0), objects.subList(1, objects.size()), new ClusterTree.Options(true, false),
                NOW).stream().filter(l -> l.name().equals("RemoteConnectionProbe")).count();
    }

    @Test
    void machinesAlikeAreOneLineUnlessGroupingIsOffOrAllIsAsked() throws Exception {
        List<JsonNode> objects = objects();
        String grouped = ClusterTree.render(ClusterTree.of(objects.get(0), objects.subList(1, objects.size()),
                new ClusterTree.Options(true, false), NOW));
        assertEquals(1, grouped.lines().filter(l -> l.contains("2 Machines...")).count(), grouped);
        assertEquals(true, grouped.lines().filter(l -> l.contains("2 Machines...")).findFirst().orElseThrow().contains(" 100m "), grouped);
        String ungrouped = ClusterTree.render(ClusterTree.of(objects.get(0), objects.subList(1, objects.size()),
                new ClusterTree.Options(false, false), NOW));
        assertEquals(0, ungrouped.lines().filter(l -> l.contains("Machines...")).count(), ungrouped);
        String all = ClusterTree.render(ClusterTree.of(objects.get(0), objects.subList(1, objects.size()),
                new ClusterTree.Options(true, true), NOW));
        assertEquals(0, all.lines().filter(l -> l.contains("Machines...")).count(), all);
        assertEquals(List.of("├─Condition ControlPlaneReady", "├─Condition WorkersReady", "├─Condition DefaultCNIConfigured",
                "├─Cluster.cluster.x-k8s.io/alpha"), all.lines().filter(l -> l.startsWith("├─C") && !l.startsWith("├─ControlPlane")
                && !l.startsWith("├─CNI")).map(l -> l.split("  ")[0]).toList());
    }

    @Test
    void anObjectWithoutStatusSaysSo() throws Exception {
        List<JsonNode> objects = objects();
        JsonNode bare = new com.fasterxml.jackson.databind.ObjectMapper().readTree("""
                {"kind": "Cluster", "metadata": {"namespace": "default", "name": "new"}, "spec": {}}""");
        List<ClusterTree.Line> tree = ClusterTree.of(bare, List.of(), new ClusterTree.Options(true, false), NOW);
        assertEquals(new ClusterTree.Line(0, "Cluster/new", "Unknown", "", "", "", "no status yet"), tree.get(0));
        assertEquals(List.of("Cluster/new", "ControlPlane", "Workers", "CNI"), tree.stream().map(ClusterTree.Line::name).toList());
    }

    @Test
    void aFailureIsShownUnderTheClusterWhateverReadySays() throws Exception {
        JsonNode conflicted = new com.fasterxml.jackson.databind.ObjectMapper().readTree("""
                {"kind": "Cluster", "metadata": {"namespace": "team-b", "name": "alpha"}, "spec": {},
                 "status": {"failureReason": "ClusterNameConflict", "failureMessage": "cluster name alpha is taken",
                  "conditions": [{"type": "Ready", "status": "False", "reason": "ScalingUp", "severity": "Info",
                   "message": "Scaling up control plane to 1 replicas (actual 0)",
                   "lastTransitionTime": "2026-11-25T09:59:00Z"}]}}""");
        List<ClusterTree.Line> tree = ClusterTree.of(conflicted, List.of(), new ClusterTree.Options(true, false), NOW);
        assertEquals("ScalingUp", tree.get(0).reason());
        assertEquals(new ClusterTree.Line(1, "Failure", "False", "Error", "ClusterNameConflict", "",
                "cluster name alpha is taken"), tree.get(1));
    }

    @Test
    void agesAreShownAsKubectlShowsThem() {
        assertEquals("45s", ClusterTree.age("2026-11-25T09:59:15Z", NOW));
        assertEquals("119s", ClusterTree.age("2026-11-25T09:58:01Z", NOW));
        assertEquals("2m", ClusterTree.age("2026-11-25T09:58:00Z", NOW));
        assertEquals("119m", ClusterTree.age("2026-11-25T08:01:00Z", NOW));
        assertEquals("2h", ClusterTree.age("2026-11-25T08:00:00Z", NOW));
        assertEquals("2d", ClusterTree.age("2026-11-23T10:00:00Z", NOW));
        assertEquals("0s", ClusterTree.age("2026-11-25T10:00:05Z", NOW), "a clock ahead is not a negative age");
        assertEquals("", ClusterTree.age("not a time", NOW));
    }
}
