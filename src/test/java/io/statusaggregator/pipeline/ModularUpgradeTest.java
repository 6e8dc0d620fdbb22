package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.CAPI;
import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.statusaggregator.Pipeline;
import io.statusaggregator.RunningPipeline;
import jakarta.inject.Inject;
import java.net.URL;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.preflight.PreflightResource;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A modular Kubernetes upgrade end to end (issue [4]): the whole pipeline on a real broker and the CRUD API server, with
 * the preflight endpoints in front. The control plane goes to 1.28 while md-1 stays on 1.27, then md-1 follows;
 * {@code workerNodeGroups} and {@code versions} are checked at each step. A skipped minor shows as the cluster's
 * failure, and the admission webhook refuses it with the same message. The mock API server runs no admission, so
 * the test asks the webhook what the API server would ask it, then applies the change itself.
 */
@QuarkusTest
class ModularUpgradeTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();
    @Inject
    RunningPipeline running;

    /** Where Quarkus serves the application's HTTP endpoints in tests (a free port). */
    @TestHTTPResource("/")
    URL root;

    private EmbeddedKubernetes kubernetes;
    private KubernetesClient client;
    private Fleet fleet;
    private Pipeline pipeline;
    private String base;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        kubernetes = EmbeddedKubernetes.start(0);
        client = kubernetes.client();
        fleet = new Fleet(client);
        pipeline = new Pipeline(Fleet.settings(kafka.bootstrapServers(), UUID.randomUUID().toString().substring(0, 8), true),
                kubernetes.newClient(), CompatibilityReader.builtIn(), Clock.systemUTC());
        pipeline.start(DEADLINE);
        running.started(pipeline);
        base = root.toString().replaceAll("/$", "");
        release("v0.21.7");
    }

    @AfterEach
    void stop() {
        running.stopped();
        pipeline.close();
        fleet.close();
        kubernetes.close();
    }

    @Test
    void theControlPlaneGoesFirstThenEachGroupAndASkippedMinorIsRefusedAndShown() throws Exception {
        createCluster("mod", "1.27");
        fleet.awaitReady("mod");
        await(DEADLINE, () -> groups("mod").equals(List.of(group("md-0", "1.27", 1), group("md-1", "1.27", 1)))
                        && reached("mod").equals(kubernetes("1.27", "md-0", null, "md-1", null)),
                () -> "created and Ready on 1.27: " + status("mod"));
        Object first = fleet.versions("default", "mod").get("current");

        // Step 1: the control plane to 1.28, md-1 pinned to 1.27. Valid, so the webhook admits it.
        String step1 = """
                {"spec": {"kubernetesVersion": "1.28", "workerNodeGroupConfigurations": [
                  {"name": "md-0", "count": 1}, {"name": "md-1", "count": 1, "kubernetesVersion": "1.27"}]}}""";
        assertEquals(Optional.empty(), admission("mod", step1), "a modular upgrade step is admitted");
        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "mod", step1);
        // Before anything rolls: md-0 wants 1.28 and its one worker is behind; md-1 is where it should be.
        await(DEADLINE, () -> groups("mod").equals(List.of(group("md-0", "1.28", 0), group("md-1", "1.27", 1)))
                        && fleet.versions("default", "mod").containsKey("next"),
                () -> "md-0 shown behind while the upgrade is under way: " + status("mod"));
        assertEquals(first, fleet.versions("default", "mod").get("current"), "current stays until the cluster is Ready at the new spec");
        rollControlPlane("mod", "v1.28.3-eks-1-28-9");
        rollWorkers("mod", "md-0", "v1.28.3-eks-1-28-9");
        fleet.awaitReady("mod");
        await(DEADLINE, () -> groups("mod").equals(List.of(group("md-0", "1.28", 1), group("md-1", "1.27", 1)))
                        && first.equals(fleet.versions("default", "mod").get("last"))
                        && !fleet.versions("default", "mod").containsKey("next")
                        && reached("mod").equals(kubernetes("1.28", "md-0", null, "md-1", "1.27")),
                () -> "Ready with md-1 still on 1.27, the new spec current: " + status("mod"));
        Object second = fleet.versions("default", "mod").get("current");
        assertNotEquals(first, second);

        // Step 2: md-1 follows to 1.28.
        String step2 = """
                {"spec": {"workerNodeGroupConfigurations": [
                  {"name": "md-0", "count": 1}, {"name": "md-1", "count": 1, "kubernetesVersion": "1.28"}]}}""";
        assertEquals(Optional.empty(), admission("mod", step2));
        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "mod", step2);
        await(DEADLINE, () -> groups("mod").equals(List.of(group("md-0", "1.28", 1), group("md-1", "1.28", 0))),
                () -> "md-1 shown behind: " + status("mod"));
        rollWorkers("mod", "md-1", "v1.28.3-eks-1-28-9");
        fleet.awaitReady("mod");
        await(DEADLINE, () -> groups("mod").equals(List.of(group("md-0", "1.28", 1), group("md-1", "1.28", 1)))
                        && second.equals(fleet.versions("default", "mod").get("last"))
                        && reached("mod").equals(kubernetes("1.28", "md-0", null, "md-1", "1.28")),
                () -> "every group on 1.28: " + status("mod"));

        // An invalid skip: 1.28 to 1.30. The webhook refuses it; stored anyway, the status shows the same failure.
        String skip = "{\"spec\": {\"kubernetesVersion\": \"1.30\"}}";
        String expected = "only +1 minor version skew is supported, minor version skew detected 2";
        assertEquals(Optional.of(expected), admission("mod", skip));
        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "mod", skip);
        // Ready mirrors WorkersReady first (the workers are not on 1.30), so the failure shows in its own fields.
        await(DEADLINE, () -> expected.equals(status("mod").get("failureMessage"))
                        && "KubernetesVersionInvalid".equals(status("mod").get("failureReason"))
                        && "False".equals(fleet.condition("default", "mod", "Ready").get("status")),
                () -> "the skip shown as the cluster's failure: " + status("mod"));

        // Fixing the spec clears the failure.
        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "mod", "{\"spec\": {\"kubernetesVersion\": \"1.28\"}}");
        fleet.awaitReady("mod");
        await(DEADLINE, () -> !status("mod").containsKey("failureReason"), () -> "failure cleared: " + status("mod"));
    }

    @Test
    void theUpgradeCheckAnswersUpToDateOneStepTwoStepsAndAnUnknownTarget() throws Exception {
        createCluster("chk", "1.28");
        await(DEADLINE, () -> pipeline.management().get().releases().map(r -> r.size() == 1).orElse(false), () -> "releases known");

        JsonNode upToDate = upgradeCheck("chk", "");
        assertEquals(200, upToDate.path("code").asInt());
        assertTrue(upToDate.path("body").path("upToDate").asBoolean(), upToDate.toString());
        assertEquals(0, upToDate.path("body").path("steps").size());

        release("v0.22.6");
        await(DEADLINE, () -> pipeline.management().get().releases().map(r -> r.size() == 2).orElse(false), () -> "new release seen");
        JsonNode oneStep = upgradeCheck("chk", "").path("body");
        assertFalse(oneStep.path("upToDate").asBoolean());
        assertEquals(1, oneStep.path("steps").size(), oneStep.toString());
        assertEquals("upgrade EKS-A from v0.21.7 to v0.22.6 (Cilium v1.14.12-eksa.3 -> v1.15.16-eksa.1)",
                oneStep.path("steps").get(0).path("description").asText());
        assertEquals("v1.15.16-eksa.1", oneStep.path("to").path("cilium").asText());

        release("v0.23.1");
        await(DEADLINE, () -> pipeline.management().get().releases().map(r -> r.size() == 3).orElse(false), () -> "new release seen");
        JsonNode twoSteps = upgradeCheck("chk", "v0.23.1").path("body");
        assertEquals(List.of("v0.22.6", "v0.23.1"), List.of(twoSteps.path("steps").get(0).path("to").asText(),
                twoSteps.path("steps").get(1).path("to").asText()), twoSteps.toString());
        assertTrue(twoSteps.path("notes").toString().contains("EKS-A upgrades go one minor version at a time"), twoSteps.toString());

        JsonNode unknown = upgradeCheck("chk", "v0.99.0");
        assertEquals(422, unknown.path("code").asInt());
        assertEquals("unknown EKS-A version v0.99.0: no EKSARelease eksa-v0-99-0 on the management cluster",
                unknown.path("body").path("error").asText());
        assertEquals(404, upgradeCheck("nosuch", "").path("code").asInt());
    }

    private void release(String version) {
        client.genericKubernetesResources(KubernetesResources.RELEASES).inNamespace(CAPI).resource(client.getKubernetesSerialization().unmarshal("""
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: EKSARelease
                metadata: {name: %s, namespace: eksa-system}
                spec: {version: %s, bundlesRef: {name: bundles-%s, namespace: eksa-system}}
                """.formatted(io.statusaggregator.model.EksaReleaseName.of(version), version, version.replace('.', '-')),
                GenericKubernetesResource.class)).create();
    }

    /** A cluster on EKS-A v0.21.7 with two groups of one worker, all Ready on {@code version}. */
    private void createCluster(String name, String version) {
        fleet.create(ObjectKind.EKSA_CLUSTER, """
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata: {namespace: default, name: %s}
                spec:
                  kubernetesVersion: "%s"
                  eksaVersion: v0.21.7
                  controlPlaneConfiguration: {count: 1}
                  workerNodeGroupConfigurations: [{name: md-0, count: 1}, {name: md-1, count: 1}]
                  clusterNetwork: {cniConfig: {cilium: {}}}
                """.formatted(name, version));
        fleet.create(ObjectKind.KUBEADM_CONTROL_PLANE, """
                apiVersion: controlplane.cluster.x-k8s.io/v1beta1
                kind: KubeadmControlPlane
                metadata: {namespace: %s, name: %s, labels: {cluster.x-k8s.io/cluster-name: %s}}
                spec: {replicas: 1}
                """.formatted(CAPI, name, name));
        fleet.controlPlaneReady(name, 1);
        for (String group : List.of("md-0", "md-1")) {
            fleet.create(ObjectKind.MACHINE_DEPLOYMENT, """
                    apiVersion: cluster.x-k8s.io/v1beta1
                    kind: MachineDeployment
                    metadata: {namespace: %s, name: %s-%s}
                    spec: {clusterName: %s, replicas: 1}
                    """.formatted(CAPI, name, group, name));
            fleet.create(ObjectKind.MACHINE, """
                    apiVersion: cluster.x-k8s.io/v1beta1
                    kind: Machine
                    metadata: {namespace: %s, name: %s-%s-a, labels: {cluster.x-k8s.io/cluster-name: %s, cluster.x-k8s.io/deployment-name: %s-%s}}
                    spec: {clusterName: %s, version: v%s.4-eks-1}
                    """.formatted(CAPI, name, group, name, name, group, name, version));
            groupReady(name, group, 1);
        }
        Fleet.cilium(fleet.workloadCluster(name), "v1.14.12-eksa.3", 3, 3);
    }

    private void groupReady(String name, String group, long generation) {
        fleet.patchStatus(ObjectKind.MACHINE_DEPLOYMENT, CAPI, name + "-" + group, """
                {"status": {"observedGeneration": %d, "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1,
                 "conditions": [{"type": "Ready", "status": "True"}]}}""".formatted(generation));
    }

    /** CAPI replaces the control plane: the KCP reports its new generation observed and all replicas updated. */
    private void rollControlPlane(String name, String version) {
        fleet.patch(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, name, "{\"spec\": {\"version\": \"" + version + "\"}}");
        long generation = fleet.get(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, name).orElseThrow().getMetadata().getGeneration();
        fleet.patchStatus(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, name, """
                {"status": {"observedGeneration": %d, "initialized": true, "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1,
                 "conditions": [{"type": "Available", "status": "True"}]}}""".formatted(generation));
    }

    /** CAPI replaces a group's Machine with one on the new version. */
    private void rollWorkers(String name, String group, String version) {
        fleet.patch(ObjectKind.MACHINE_DEPLOYMENT, CAPI, name + "-" + group, "{\"spec\": {\"template\": {\"spec\": {\"version\": \"" + version + "\"}}}}");
        fleet.patch(ObjectKind.MACHINE, CAPI, name + "-" + group + "-a", "{\"spec\": {\"version\": \"" + version + "\"}}");
        groupReady(name, group, fleet.get(ObjectKind.MACHINE_DEPLOYMENT, CAPI, name + "-" + group).orElseThrow().getMetadata().getGeneration());
    }

    /** What the webhook answers for the change {@code patch} to the stored Cluster: empty if admitted, else why not. */
    private Optional<String> admission(String name, String patch) throws Exception {
        GenericKubernetesResource stored = fleet.get(ObjectKind.EKSA_CLUSTER, "default", name).orElseThrow();
        JsonNode old = client.getKubernetesSerialization().convertValue(stored, JsonNode.class);
        ObjectNode changed = old.deepCopy();
        merge(changed, JSON.readTree(patch));
        ObjectNode review = JSON.createObjectNode().put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
        review.putObject("request").put("uid", "u-1").put("operation", "UPDATE").<ObjectNode>set("object", changed).set("oldObject", old);
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + PreflightResource.ADMISSION_PATH))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(review.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        JsonNode answer = JSON.readTree(response.body()).path("response");
        assertEquals("u-1", answer.path("uid").asText());
        return answer.path("allowed").asBoolean() ? Optional.empty() : Optional.of(answer.path("status").path("message").asText());
    }

    /** RFC 7386, as the API server applies a merge patch. */
    private static void merge(ObjectNode target, JsonNode patch) {
        patch.properties().forEach(e -> {
            if (e.getValue().isObject() && target.path(e.getKey()).isObject()) {
                merge((ObjectNode) target.get(e.getKey()), e.getValue());
            } else if (e.getValue().isNull()) {
                target.remove(e.getKey());
            } else {
                target.set(e.getKey(), e.getValue());
            }
        });
    }

    private JsonNode upgradeCheck(String name, String to) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + PreflightResource.UPGRADE_CHECK_PATH
                + "/default/" + name + (to.isEmpty() ? "" : "?to=" + to))).GET().build(), HttpResponse.BodyHandlers.ofString());
        ObjectNode result = JSON.createObjectNode().put("code", response.statusCode());
        result.set("body", JSON.readTree(response.body()));
        return result;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> status(String name) {
        return fleet.get(ObjectKind.EKSA_CLUSTER, "default", name)
                .map(c -> (Map<String, Object>) c.getAdditionalProperties().getOrDefault("status", Map.of())).orElse(Map.of());
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> groups(String name) {
        return (List<Map<String, Object>>) status(name).getOrDefault("workerNodeGroups", List.of());
    }

    private static Map<String, Object> group(String name, String version, int upToDate) {
        return Map.of("name", name, "kubernetesVersion", version, "replicas", 1, "readyReplicas", 1, "upToDateReplicas", upToDate);
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> reached(String name) {
        return (Map<String, Object>) fleet.versions("default", name).getOrDefault("currentKubernetes", Map.of());
    }

    private static Map<String, Object> kubernetes(String cluster, String group1, String own1, String group2, String own2) {
        return Map.of("kubernetesVersion", cluster, "workerNodeGroups", List.of(groupEntry(group1, own1), groupEntry(group2, own2)));
    }

    private static Map<String, Object> groupEntry(String name, String own) {
        return own == null ? Map.of("name", name) : Map.of("name", name, "kubernetesVersion", own);
    }
}
