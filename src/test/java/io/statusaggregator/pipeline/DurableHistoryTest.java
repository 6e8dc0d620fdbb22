package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.statusaggregator.Pipeline;
import io.statusaggregator.RunningPipeline;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.embedded.EmbeddedKubernetes.ClusterCrd;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.topics.StatusFeed;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ClusterStatus.Versions;
import io.statusaggregator.model.EksaReleaseName;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import jakarta.inject.Inject;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The version history is durable (versions.md, 003) on an API server serving EKS-A's own Cluster CRD, which drops
 * {@code status.versions} from every status written: a restart and a rebalance continue it from the status topic,
 * and the admission webhook, asked over HTTP after the restart, refuses a skipped EKS-A minor and a Kubernetes
 * downgrade from it. (The Fabric8 mock server applies no CRD schema; the embedded API prunes the status to EKS-A's
 * schema itself, as a real API server would.)
 */
@QuarkusTest
class DurableHistoryTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    final PipelineRun pipelineRun = new PipelineRun(() -> kafka.bootstrapServers());

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectKey ALPHA = new ObjectKey("default", "alpha");
    private final HttpClient http = HttpClient.newHttpClient();

    @Inject
    RunningPipeline running;

    @TestHTTPResource("/")
    URL application;

    @AfterEach
    void notRunning() {
        running.stopped();
    }

    @Test
    void aRestartAndARebalanceContinueTheHistoryAndTheWebhookRefusesFromIt() throws Exception {
        pipelineRun.kubernetes().serveClusterStatus(ClusterCrd.EKSA);
        Fleet fleet = pipelineRun.fleet();
        Pipeline first = started(pipelineRun.start());
        fleet.createCluster("alpha", 1, 1);
        fleet.controlPlaneReady("alpha", 1);
        fleet.workers("alpha", 1, 1, 1, 1);
        Fleet.cilium(fleet.workloadCluster("alpha"), "v1.15.16-eksa.1", 1, 1);
        fleet.awaitReady("alpha");
        String created = awaitHistory(first, v -> v.current().filter(c -> c.startsWith("v0.23.1#")).isPresent())
                .current().orElseThrow();
        assertFalse(fleet.status("default", "alpha").containsKey("versions"),
                "the stock CRD keeps no versions on the Cluster");

        // An upgrade: the history moves, current to last.
        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "alpha", "{\"spec\": {\"kubernetesVersion\": \"1.32\"}}");
        Versions upgraded = awaitHistory(first, v -> v.last().equals(Optional.of(created)) && v.next().isEmpty());
        fleet.awaitReady("alpha");

        // A restart: a new pipeline on the same topics continues it; the status topic keeps it as it was.
        pipelineRun.stop(first);
        running.stopped();
        Pipeline second = started(pipelineRun.start());
        await(DEADLINE, () -> second.aggregator().settled() && second.versionHistory().caughtUp(),
                second.aggregator()::progress);
        assertEquals(Optional.of(upgraded), second.versionHistory().of(ALPHA));
        assertEquals(upgraded, statusTopic().versions(), "the restarted instance published no history of its own");

        // The webhook, after the restart, judges from that history: the Cluster it is sent shows none.
        release("v0.23.2");
        release("v0.25.0");
        await(DEADLINE, () -> second.management().get().releases().map(r -> r.size() == 3).orElse(false),
                () -> "releases seen");
        JsonNode stored = JSON.readTree(pipelineRun.kubernetes().client().getKubernetesSerialization()
                .asJson(fleet.get(ObjectKind.EKSA_CLUSTER, "default", "alpha").orElseThrow()));
        assertFalse(stored.path("status").has("versions"));
        JsonNode skipped = review(stored, "eksaVersion", "v0.25.0");
        assertFalse(skipped.path("allowed").asBoolean(), skipped.toString());
        assertEquals("cannot upgrade to v0.25.0 from v0.23.1: EksaVersion upgrades must have a skew of 1 minor version",
                skipped.path("status").path("message").asText());
        JsonNode downgrade = review(stored, "kubernetesVersion", "1.31");
        assertEquals("kubernetes version downgrade is not supported (1.32) -> (1.31)",
                downgrade.path("status").path("message").asText());
        assertTrue(review(stored, "kubernetesVersion", "1.33").path("allowed").asBoolean(), "one minor up passes");

        // A further upgrade after the restart moves last correctly.
        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "alpha", "{\"spec\": {\"kubernetesVersion\": \"1.33\"}}");
        Versions again = awaitHistory(second, v -> v.last().equals(upgraded.current()) && v.next().isEmpty());
        fleet.awaitReady("alpha");

        // A rebalance: a third replica joins, the second leaves, the third takes alpha's partition over.
        Pipeline third = pipelineRun.start();
        await(DEADLINE, () -> third.aggregator().live() && second.aggregator().settled(), third.aggregator()::progress);
        pipelineRun.stop(second);
        started(third);
        await(DEADLINE, () -> third.aggregator().clustersTracked() == 1 && third.aggregator().settled(),
                third.aggregator()::progress);
        assertEquals(again, statusTopic().versions());

        // An EKS-A upgrade (a patch release) computed by the third: the 1.33 spec reached before becomes last.
        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "alpha", "{\"spec\": {\"eksaVersion\": \"v0.23.2\"}}");
        Versions eksaUpgraded = awaitHistory(third, v -> v.current().filter(c -> c.startsWith("v0.23.2#")).isPresent());
        assertEquals(again.current(), eksaUpgraded.last());
        assertEquals(Optional.empty(), eksaUpgraded.next());
        fleet.awaitReady("alpha");
    }

    private Pipeline started(Pipeline pipeline) {
        running.started(pipeline);
        return pipeline;
    }

    /** Waits for alpha's history on the status topic (as {@code pipeline} follows it) to match {@code done}. */
    private Versions awaitHistory(Pipeline pipeline, java.util.function.Predicate<Versions> done) {
        await(DEADLINE, () -> pipeline.versionHistory().of(ALPHA).filter(done).isPresent(),
                () -> "alpha's history on the status topic: " + pipeline.versionHistory().of(ALPHA) + ", its status: "
                        + pipelineRun.fleet().status("default", "alpha"));
        return pipeline.versionHistory().of(ALPHA).orElseThrow();
    }

    /** Alpha's last record on the status topic, read on its own. */
    private ClusterStatus statusTopic() {
        return StatusFeed.latest(Map.of("bootstrap.servers", kafka.bootstrapServers()), "statuses-" + pipelineRun.id(),
                Duration.ofSeconds(10)).orElseThrow().get(ALPHA.toString());
    }

    private void release(String version) {
        var client = pipelineRun.kubernetes().client();
        client.genericKubernetesResources(KubernetesResources.RELEASES).inNamespace(Fleet.CAPI)
                .resource(client.getKubernetesSerialization().unmarshal("""
                        apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                        kind: EKSARelease
                        metadata: {name: %s, namespace: %s}
                        spec: {version: %s, bundlesRef: {name: bundles-1, namespace: eksa-system}}
                        """.formatted(EksaReleaseName.of(version), Fleet.CAPI, version),
                        GenericKubernetesResource.class)).create();
    }

    /** The webhook's answer, over HTTP, to an UPDATE of {@code stored} setting {@code spec.field} to {@code value}. */
    private JsonNode review(JsonNode stored, String field, String value) throws Exception {
        ObjectNode changed = stored.deepCopy();
        changed.with("spec").put(field, value);
        ObjectNode review = JSON.createObjectNode().put("apiVersion", "admission.k8s.io/v1")
                .put("kind", "AdmissionReview");
        ObjectNode request = review.putObject("request").put("uid", "u-1").put("operation", "UPDATE");
        request.set("object", changed);
        request.set("oldObject", stored);
        HttpRequest post = HttpRequest.newBuilder(application.toURI().resolve("/admission/clusters"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(review.toString())).build();
        HttpResponse<String> answer = http.send(post, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), answer.body());
        return JSON.readTree(answer.body()).path("response");
    }
}
