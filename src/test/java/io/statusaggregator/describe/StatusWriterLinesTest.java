package io.statusaggregator.describe;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Who writes a Cluster's status, as {@code describe} and the fleet page show it: the managers of its status conditions
 * that {@code metadata.managedFields} name (a real API server keeps them; here they are written into the fixture, the
 * Fabric8 mock API server keeps none), and each owned condition where the aggregator's verdict and the stored one
 * differ.
 */
class StatusWriterLinesTest {
    private static final Instant NOW = Instant.parse("2026-11-25T10:00:00Z");
    private static final YAMLMapper YAML = new YAMLMapper();

    private static List<JsonNode> objects() throws Exception {
        try (InputStream in = StatusWriterLinesTest.class.getResourceAsStream("/describe/rolling.yaml")) {
            List<JsonNode> nodes = new ArrayList<>();
            YAML.readValues(YAML.getFactory().createParser(in), JsonNode.class).forEachRemaining(nodes::add);
            return nodes;
        }
    }

    /** The fixture's Cluster, its status conditions last written by {@code managers} (as their field managers). */
    private static JsonNode writtenBy(JsonNode cluster, String... managers) throws Exception {
        ObjectNode copy = cluster.deepCopy();
        var entries = ((ObjectNode) copy.get("metadata")).putArray("managedFields");
        entries.add(YAML.readTree("{manager: kubectl-client-side-apply, operation: Update, apiVersion: v1alpha1, "
                + "fieldsType: FieldsV1, fieldsV1: {'f:spec': {}}}"));
        for (String manager : managers) {
            entries.add(YAML.readTree("{manager: " + manager + ", operation: Update, subresource: status, "
                    + "apiVersion: v1alpha1, fieldsType: FieldsV1, "
                    + "fieldsV1: {'f:status': {'f:conditions': {}, 'f:observedGeneration': {}}}}"));
        }
        return copy;
    }

    /** The tree's lines about who writes the status, their columns' padding made two spaces. */
    private static List<String> statusLines(JsonNode cluster, Optional<JsonNode> verdict) throws Exception {
        List<JsonNode> objects = objects();
        String tree = ClusterTree.render(ClusterTree.of(cluster, objects.subList(1, objects.size()), verdict,
                new ClusterTree.Options(true, false), NOW));
        return tree.lines().filter(l -> l.contains("StatusWriter") || l.contains("the aggregator's"))
                .map(l -> l.strip().replaceAll(" {2,}", "  ")).toList();
    }

    @Test
    void anotherControllerWritingTheConditionsIsNamed() throws Exception {
        JsonNode cluster = writtenBy(objects().get(0), "manager", "status-aggregator");
        assertEquals(List.of("├─StatusWriter  manager: another controller (EKS-A's, where it runs); the aggregator "
                + "publishes its own verdict only"), statusLines(cluster, Optional.empty()));
    }

    @Test
    void theAggregatorAloneOrAPersonIsSaidSo() throws Exception {
        assertEquals(List.of("├─StatusWriter  this aggregator"),
                statusLines(writtenBy(objects().get(0), "status-aggregator"), Optional.empty()));
        assertEquals(List.of("├─StatusWriter  kubectl-edit: a person's edit, which the aggregator puts back once"),
                statusLines(writtenBy(objects().get(0), "kubectl-edit", "status-aggregator"), Optional.empty()));
    }

    @Test
    void withoutManagedFieldsNothingIsClaimed() throws Exception {
        assertEquals(List.of(), statusLines(objects().get(0), Optional.empty()), "the mock API server's Clusters");
    }

    @Test
    void eachConditionWhereTheAggregatorsVerdictDiffersFromTheStoredOneIsShownWithBoth() throws Exception {
        JsonNode verdict = YAML.readTree("""
                conditions:
                  - {type: ControlPlaneInitialized, status: "True", lastTransitionTime: "2026-11-25T08:00:00Z"}
                  - {type: ControlPlaneReady, status: "True", lastTransitionTime: "2026-11-25T07:00:00Z"}
                  - {type: WorkersReady, status: "False", severity: Error, reason: MachineDeploymentNotReady,
                     message: "Machine deployment alpha-md-0 not ready yet"}
                  - {type: DefaultCNIConfigured, status: "True"}
                  - {type: Ready, status: "False", severity: Error, reason: MachineDeploymentNotReady,
                     message: "Machine deployment alpha-md-0 not ready yet"}
                """);
        List<String> lines = statusLines(writtenBy(objects().get(0), "manager"), Optional.of(verdict));
        String theirs = "(stored: False RollingUpgradeInProgress Info \"Worker nodes not up-to-date yet, 2 upgrading "
                + "(1 up to date)\")";
        String ours = "False  Error  MachineDeploymentNotReady  Machine deployment alpha-md-0 not ready yet ";
        assertEquals(List.of(
                "├─StatusWriter  manager: another controller (EKS-A's, where it runs); the aggregator publishes its own "
                        + "verdict only",
                "├─ControlPlaneInitialized, the aggregator's  True  (stored: none)",
                "├─WorkersReady, the aggregator's  " + ours + theirs,
                "├─Ready, the aggregator's  " + ours + theirs),
                lines, "the times left out: ControlPlaneReady agrees");
    }
}
