package io.statusaggregator.describe;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterTreeTest {
    private static final Instant NOW = Instant.parse("2026-11-25T10:00:00Z");

    private static List<JsonNode> objects() throws Exception {
        try (InputStream in = ClusterTreeTest.class.getResourceAsStream("/describe/rolling.yaml")) {
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
