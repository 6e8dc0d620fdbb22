package io.statusaggregator.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.statusaggregator.model.ObjectKind;
import org.junit.jupiter.api.Test;
import io.statusaggregator.topics.ObjectReduction;

/**
 * Ingest passes on who writes an EKS-A Cluster's status conditions, as a real API server's {@code managedFields}
 * name them (the Fabric8 mock API server keeps none), and nothing else of the managedFields.
 */
class StatusWritersReductionTest {
    private static final YAMLMapper YAML = new YAMLMapper();

    private static JsonNode cluster(String annotations, String managedFields) throws Exception {
        return YAML.readTree("""
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata:
                  namespace: default
                  name: alpha
                  annotations: %s
                  managedFields: %s
                spec: {kubernetesVersion: "1.31"}
                status: {observedGeneration: 1}
                """.formatted(annotations, managedFields));
    }

    @Test
    void theManagersOfTheStatusConditionsAreKeptSortedAndTheRestOfTheManagedFieldsDropped() throws Exception {
        JsonNode reduced = ObjectReduction.reduce(ObjectKind.EKSA_CLUSTER, cluster("{}", """
                [{manager: kubectl-client-side-apply, operation: Update, fieldsV1: {'f:spec': {}}},
                 {manager: status-aggregator, operation: Update, subresource: status,
                  fieldsV1: {'f:status': {'f:conditions': {}}}},
                 {manager: manager, operation: Update, subresource: status,
                  fieldsV1: {'f:status': {'f:conditions': {}}}},
                 {manager: "odd,name", operation: Update, subresource: status,
                  fieldsV1: {'f:status': {'f:conditions': {}}}},
                 {manager: other, operation: Update, subresource: status, fieldsV1: {'f:status': {'f:defaultCNI': {}}}}]
                """));
        assertEquals("manager,oddname,status-aggregator",
                reduced.path("metadata").path("annotations").path(ObjectReduction.STATUS_WRITERS).asText());
        assertFalse(reduced.path("metadata").has("managedFields"));
    }

    @Test
    void noneNamedNoneSentAndAnAnnotationOfThatNameOnTheClusterIsNotTaken() throws Exception {
        JsonNode reduced = ObjectReduction.reduce(ObjectKind.EKSA_CLUSTER,
                cluster("{statusaggregator.io/status-writers: manager}", "[]"));
        assertFalse(reduced.path("metadata").path("annotations").has(ObjectReduction.STATUS_WRITERS),
                "only the API server's managedFields say who writes: " + reduced);
    }
}
