package io.statusaggregator.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.statusaggregator.model.ClusterStatus.Versions;
import io.statusaggregator.model.EksaRelease;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.KubernetesVersions;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ManagementCluster;
import io.statusaggregator.versions.Compatibility;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The admission webhook's answers: what it refuses, with which message, and what it lets through. */
class AdmissionWebhookTest {
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Compatibility COMPATIBILITY = CompatibilityReader.builtIn();
    private static final ManagementCluster MANAGEMENT = new ManagementCluster(
            Optional.of(List.of(new EksaRelease("eksa-v0-21-7", Optional.of("v0.21.7"), Optional.empty()))), Map.of("mgmt", "v0.21.7"));

    private static JsonNode cluster(String kubernetesVersion, String eksaVersion, String reached) throws Exception {
        return YAML.readTree("""
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata: {namespace: default, name: w1, labels: {team: a}}
                spec:
                  kubernetesVersion: "%s"
                  eksaVersion: %s
                  managementCluster: {name: mgmt}
                  controlPlaneConfiguration: {count: 1}
                  workerNodeGroupConfigurations: [{name: md-0, count: 1}]
                status:
                  versions:
                    current: "v0.21.7#h"
                    currentKubernetes: {kubernetesVersion: "%s", workerNodeGroups: [{name: md-0}]}
                """.formatted(kubernetesVersion, eksaVersion, reached));
    }

    private static JsonNode review(String operation, JsonNode object, JsonNode old) {
        ObjectNode review = YAML.createObjectNode().put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
        ObjectNode request = review.putObject("request").put("uid", "abc-123").put("operation", operation);
        request.set("object", object);
        if (old != null) {
            request.set("oldObject", old);
        }
        return review;
    }

    private static JsonNode answer(JsonNode review) throws AdmissionWebhook.HistoryNotRead {
        return answer(review, AdmissionWebhook.History.NONE);
    }

    private static JsonNode answer(JsonNode review, AdmissionWebhook.History history)
            throws AdmissionWebhook.HistoryNotRead {
        JsonNode answer = AdmissionWebhook.review(review, MANAGEMENT, COMPATIBILITY, history);
        assertEquals("admission.k8s.io/v1", answer.path("apiVersion").asText());
        assertEquals("AdmissionReview", answer.path("kind").asText());
        assertEquals(review.path("request").path("uid").asText(""), answer.path("response").path("uid").asText());
        return answer.path("response");
    }

    @Test
    void anUpgradeByOneMinorIsAdmitted() throws Exception {
        assertTrue(answer(review("UPDATE", cluster("1.28", "v0.21.7", "1.27"), cluster("1.27", "v0.21.7", "1.27"))).path("allowed").asBoolean());
    }

    @Test
    void aSkippedMinorIsRefusedWithTheStatusMessage() throws Exception {
        JsonNode response = answer(review("UPDATE", cluster("1.29", "v0.21.7", "1.27"), cluster("1.27", "v0.21.7", "1.27")));
        assertFalse(response.path("allowed").asBoolean());
        assertEquals("only +1 minor version skew is supported, minor version skew detected 2", response.path("status").path("message").asText());
        assertEquals(422, response.path("status").path("code").asInt());
    }

    @Test
    void theRulesCompareWithWhatTheStoredClusterReachedNotWithItsSpec() throws Exception {
        // Stored spec already asks for 1.28 (an upgrade under way from 1.27); 1.29 now would be two minors past 1.27.
        JsonNode response = answer(review("UPDATE", cluster("1.29", "v0.21.7", "1.99"), cluster("1.28", "v0.21.7", "1.27")));
        assertEquals("only +1 minor version skew is supported, minor version skew detected 2", response.path("status").path("message").asText());
    }

    @Test
    void aCreateIsHeldToTheRulesThatNeedNoHistory() throws Exception {
        JsonNode missing = answer(review("CREATE", cluster("1.28", "v0.22.0", "1.28"), null));
        assertEquals("eksarelease eksa-v0-22-0 could not be found on the management cluster", missing.path("status").path("message").asText());
        JsonNode fine = cluster("1.28", "v0.21.7", "1.20"); // a status sent on create is not history
        assertTrue(answer(review("CREATE", fine, null)).path("allowed").asBoolean());
    }

    @Test
    void aKubernetesVersionTheReleaseDoesNotSupportIsRefusedOnCreateAndUpdate() throws Exception {
        String unsupported = "kubernetes version 1.99 is not supported by EKS-A v0.21.7, which supports 1.27, 1.28, 1.29, 1.30, 1.31";
        JsonNode created = answer(review("CREATE", cluster("1.99", "v0.21.7", "1.99"), null));
        assertFalse(created.path("allowed").asBoolean());
        assertEquals(unsupported, created.path("status").path("message").asText());
        assertEquals(422, created.path("status").path("code").asInt());
        // 1.31 to 1.32 is one minor, which the change rules allow; v0.21 has no 1.32.
        JsonNode updated = answer(review("UPDATE", cluster("1.32", "v0.21.7", "1.31"), cluster("1.31", "v0.21.7", "1.31")));
        assertEquals(unsupported.replace("1.99", "1.32"), updated.path("status").path("message").asText());
    }

    @Test
    void aWorkloadClusterAheadOfItsManagementClusterIsRefused() throws Exception {
        ManagementCluster newer = new ManagementCluster(Optional.of(List.of(
                new EksaRelease("eksa-v0-21-7", Optional.of("v0.21.7"), Optional.empty()),
                new EksaRelease("eksa-v0-22-0", Optional.of("v0.22.0"), Optional.empty()))), Map.of("mgmt", "v0.21.7"));
        JsonNode response = AdmissionWebhook.review(review("UPDATE", cluster("1.28", "v0.22.0", "1.28"),
                        cluster("1.28", "v0.21.7", "1.28")), newer, COMPATIBILITY, AdmissionWebhook.History.NONE)
                .path("response");
        assertEquals("cannot upgrade workload cluster to v0.22.0 while management cluster is an older version: v0.21.7",
                response.path("status").path("message").asText());
    }

    @Test
    void anEditThatLeavesTheSpecAloneIsAdmittedEvenOnAFailingCluster() throws Exception {
        JsonNode failing = cluster("1.30", "v0.21.7", "1.27");
        ObjectNode relabelled = failing.deepCopy();
        ((ObjectNode) relabelled.path("metadata").path("labels")).put("team", "b");
        assertTrue(answer(review("UPDATE", relabelled, failing)).path("allowed").asBoolean());
    }

    @Test
    void aMalformedClusterIsRefusedNamingTheField() throws Exception {
        ObjectNode bad = (ObjectNode) cluster("1.28", "v0.21.7", "1.28");
        ((ObjectNode) bad.path("spec").path("controlPlaneConfiguration")).put("count", -1);
        JsonNode response = answer(review("CREATE", bad, null));
        assertFalse(response.path("allowed").asBoolean());
        assertTrue(response.path("status").path("message").asText().startsWith("spec.controlPlaneConfiguration.count:"),
                response.toString());
    }

    /** The old object as a stock EKS-A Cluster CRD stores it: no {@code status.versions} (pruned). */
    private static JsonNode pruned(JsonNode cluster) {
        JsonNode copy = cluster.deepCopy();
        ((ObjectNode) copy.path("status")).remove("versions");
        return copy;
    }

    /** An UPDATE from {@code from} to {@code to} (Kubernetes, EKS-A) of a Cluster that shows no versions. */
    private static JsonNode prunedUpdate(String to, String toEksa, String from) throws Exception {
        return review("UPDATE", pruned(cluster(to, toEksa, from)), pruned(cluster(from, "v0.21.7", from)));
    }

    /** The status topic's history of default/w1: v0.21.7 reached, on Kubernetes {@code reached}. */
    private static AdmissionWebhook.History recorded(String reached) {
        KubernetesVersions kubernetes = new KubernetesVersions(KubernetesVersion.parseSpec(reached),
                List.of(new KubernetesVersions.Group("md-0", Optional.empty())));
        Versions versions = new Versions(Optional.empty(), Optional.of("v0.21.7#h"), Optional.of("v0.20.1#g"),
                Optional.of(kubernetes));
        return new AdmissionWebhook.History(true, cluster -> cluster.equals(new ObjectKey("default", "w1"))
                ? Optional.of(versions) : Optional.empty());
    }

    @Test
    void onAStockCrdASkippedMinorAndADowngradeAreJudgedFromTheDurableHistory() throws Exception {
        ManagementCluster withNewer = new ManagementCluster(Optional.of(List.of(
                new EksaRelease("eksa-v0-21-7", Optional.of("v0.21.7"), Optional.empty()),
                new EksaRelease("eksa-v0-23-0", Optional.of("v0.23.0"), Optional.empty()))), Map.of("mgmt", "v0.23.0"));
        JsonNode skipped = AdmissionWebhook.review(prunedUpdate("1.28", "v0.23.0", "1.28"), withNewer, COMPATIBILITY,
                recorded("1.28")).path("response");
        assertFalse(skipped.path("allowed").asBoolean());
        assertEquals("cannot upgrade to v0.23.0 from v0.21.7: EksaVersion upgrades must have a skew of 1 minor version",
                skipped.path("status").path("message").asText());

        JsonNode downgrade = answer(prunedUpdate("1.27", "v0.21.7", "1.28"), recorded("1.28"));
        assertEquals("kubernetes version downgrade is not supported (1.28) -> (1.27)",
                downgrade.path("status").path("message").asText());

        JsonNode unknown = answer(prunedUpdate("1.27", "v0.21.7", "1.28"), AdmissionWebhook.History.NONE);
        assertTrue(unknown.path("allowed").asBoolean(), "no history anywhere: a first version, nothing to compare with");
    }

    @Test
    void whileTheHistoryIsStillReadAClusterThatShowsNoneIsNotJudged() throws Exception {
        AdmissionWebhook.History reading = new AdmissionWebhook.History(false, cluster -> Optional.empty());
        JsonNode update = prunedUpdate("1.27", "v0.21.7", "1.28");
        AdmissionWebhook.HistoryNotRead notRead = assertThrows(AdmissionWebhook.HistoryNotRead.class,
                () -> answer(update, reading));
        assertEquals("the version history of default/w1 is still being read from the status topic; try again shortly",
                notRead.getMessage());

        JsonNode shown = answer(review("UPDATE", cluster("1.27", "v0.21.7", "1.28"), cluster("1.28", "v0.21.7", "1.28")),
                reading);
        assertEquals("kubernetes version downgrade is not supported (1.28) -> (1.27)",
                shown.path("status").path("message").asText(), "a Cluster that shows its versions is judged from them");
        JsonNode created = answer(review("CREATE", pruned(cluster("1.28", "v0.21.7", "1.28")), null), reading);
        assertTrue(created.path("allowed").asBoolean(), "a create has no history to wait for");
    }

    /** A refusal of a review the API server would never send: denied, as code 400, naming what is missing. */
    private static String unreadable(JsonNode review) throws AdmissionWebhook.HistoryNotRead {
        JsonNode response = answer(review);
        assertFalse(response.path("allowed").asBoolean(), response.toString());
        assertEquals(400, response.path("status").path("code").asInt(), response.toString());
        return response.path("status").path("message").asText();
    }

    @Test
    void aReviewWithoutAnOperationIsDenied() throws Exception {
        ObjectNode review = (ObjectNode) review("CREATE", cluster("1.28", "v0.21.7", "1.28"), null);
        ((ObjectNode) review.path("request")).remove("operation");
        assertEquals("the review names no operation (CREATE, UPDATE, DELETE or CONNECT)", unreadable(review));
        ((ObjectNode) review.path("request")).put("operation", 1);
        assertEquals("the review names no operation (CREATE, UPDATE, DELETE or CONNECT)", unreadable(review));
    }

    @Test
    void anOperationNotSpeltAsTheApiServerSpellsItIsDenied() throws Exception {
        assertEquals("the review's operation \"create\" is none of CREATE, UPDATE, DELETE and CONNECT "
                + "(the API server writes them in upper case)", unreadable(review("create", cluster("1.28", "v0.21.7", "1.28"), null)));
        assertTrue(unreadable(review("PATCH", cluster("1.28", "v0.21.7", "1.28"), null)).startsWith("the review's operation \"PATCH\""));
    }

    @Test
    void anUpdateWithoutTheOldObjectIsDenied() throws Exception {
        // Without it the rules would compare with nothing and admit a skipped minor.
        assertEquals("the UPDATE review carries no oldObject, which the rules compare with",
                unreadable(review("UPDATE", cluster("1.29", "v0.21.7", "1.27"), null)));
    }

    @Test
    void aCreateWithoutTheObjectIsDenied() throws Exception {
        assertEquals("the CREATE review carries no object", unreadable(review("CREATE", null, null)));
    }

    @Test
    void otherKindsAndOperationsAreNotThisWebhooksToJudge() throws Exception {
        JsonNode configMap = YAML.readTree("{apiVersion: v1, kind: ConfigMap, metadata: {name: x, namespace: default}}");
        assertTrue(answer(review("CREATE", configMap, null)).path("allowed").asBoolean());
        assertTrue(answer(review("DELETE", cluster("1.40", "v0.21.7", "1.27"), null)).path("allowed").asBoolean());
        assertTrue(answer(review("CONNECT", YAML.createObjectNode(), null)).path("allowed").asBoolean());
        JsonNode notAReview = AdmissionWebhook.review(YAML.readTree("{kind: Something}"), MANAGEMENT, COMPATIBILITY,
                AdmissionWebhook.History.NONE).path("response");
        assertFalse(notAReview.path("allowed").asBoolean());
        assertEquals("not an AdmissionReview request", notAReview.path("status").path("message").asText());
    }
}
