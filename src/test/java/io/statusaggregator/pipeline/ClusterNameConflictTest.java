package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.statusaggregator.Pipeline;
import io.statusaggregator.describe.ClusterObjects;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.operations.ClusterMetrics;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.time.Clock;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two EKS-A Clusters with one name in two namespaces, through the whole pipeline (status-rules.md): the Cluster
 * created first keeps the name's CAPI objects, its status, its CNI observation and its metric series whatever happens
 * to the other, which shows ClusterNameConflict; once the first is deleted, the other holds the name. The API server
 * is the CRUD mock, which stamps {@code creationTimestamp} and {@code uid} on create as a real one does.
 */
class ClusterNameConflictTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    private static final String MESSAGE = "cluster name alpha is already used by default/alpha: CAPI objects in "
            + "eksa-system are matched by name";

    private EmbeddedKubernetes management;
    private Fleet fleet;
    private Pipeline pipeline;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private ClusterMetrics metrics;

    @BeforeEach
    void start() throws Exception {
        management = EmbeddedKubernetes.start(0);
        fleet = new Fleet(management.client());
        metrics = new ClusterMetrics(registry);
        String run = UUID.randomUUID().toString().substring(0, 8);
        pipeline = new Pipeline(Fleet.settings(kafka.bootstrapServers(), run, true), management.newClient(),
                CompatibilityReader.builtIn(), Clock.systemUTC()).observedBy(metrics);
        pipeline.start(DEADLINE);
    }

    @AfterEach
    void stop() {
        pipeline.close();
        metrics.close();
        fleet.close();
        management.close();
    }

    /** The same Cluster as default/alpha, in namespace team-b, created after it. */
    private void borrowName() {
        fleet.create(ObjectKind.EKSA_CLUSTER, """
                apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                kind: Cluster
                metadata: {namespace: team-b, name: alpha}
                spec:
                  kubernetesVersion: "1.31"
                  eksaVersion: v0.23.1
                  controlPlaneConfiguration: {count: 1}
                  workerNodeGroupConfigurations: [{name: md-0, count: 1}]
                  clusterNetwork: {cniConfig: {cilium: {}}}
                """);
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> status(String namespace) {
        return fleet.get(ObjectKind.EKSA_CLUSTER, namespace, "alpha")
                .map(c -> (Map<String, Object>) c.getAdditionalProperties().getOrDefault("status", Map.of()))
                .orElse(Map.of());
    }

    private String resourceVersion(String namespace) {
        return fleet.get(ObjectKind.EKSA_CLUSTER, namespace, "alpha").orElseThrow().getMetadata().getResourceVersion();
    }

    private boolean hasSeries(String namespace) {
        return registry.getMeters().stream().anyMatch(m -> "alpha".equals(m.getId().getTag("name"))
                && namespace.equals(m.getId().getTag("namespace")));
    }

    private void awaitConflict() {
        await(DEADLINE, () -> "ClusterNameConflict".equals(status("team-b").get("failureReason")),
                () -> "team-b/alpha should show ClusterNameConflict, shows " + status("team-b"));
        assertEquals(MESSAGE, status("team-b").get("failureMessage"));
    }

    @Test
    void aBorrowedNameLeavesTheFirstClusterAsItWasThroughTheOthersLife() {
        fleet.createReady("alpha");
        await(DEADLINE, () -> hasSeries("default"), () -> "default/alpha's series");
        String before = resourceVersion("default");

        borrowName();
        awaitConflict();
        assertEquals("False", fleet.condition("team-b", "alpha", "Ready").get("status"));
        assertEquals(before, resourceVersion("default"), "default/alpha was written: " + status("default"));
        // describe and the fleet page's tree: alpha's CAPI objects are default/alpha's, not team-b/alpha's.
        ClusterObjects objects = new ClusterObjects(management.client(), Fleet.CAPI);
        assertEquals(0, objects.read(new ObjectKey("team-b", "alpha")).orElseThrow().capi().size());
        assertFalse(objects.read(new ObjectKey("default", "alpha")).orElseThrow().capi().isEmpty());

        fleet.delete(ObjectKind.EKSA_CLUSTER, "team-b", "alpha");
        await(DEADLINE, () -> !hasSeries("team-b"), () -> "team-b/alpha's series should vanish with it");
        // A change of alpha's workers after the deletion: its status follows, its CNI is still observed, and its
        // series stayed.
        fleet.workers("alpha", 1, 1, 1, 0);
        fleet.awaitCondition("alpha", "WorkersReady", "False", "ScalingUp",
                "Workers expected not ready yet, 1 replicas (actual 0)");
        fleet.workers("alpha", 1, 1, 1, 1);
        fleet.awaitReady("alpha");
        assertEquals("True", fleet.condition("default", "alpha", "DefaultCNIConfigured").get("status"));
        assertFalse(status("default").containsKey("failureReason"), "default/alpha: " + status("default"));
        assertEquals(true, hasSeries("default"));
    }

    @Test
    void deletingTheFirstGivesTheNameToTheOther() {
        fleet.createReady("alpha");
        borrowName();
        awaitConflict();

        fleet.delete(ObjectKind.EKSA_CLUSTER, "default", "alpha");

        await(DEADLINE, () -> "True".equals(fleet.condition("team-b", "alpha", "Ready").get("status")),
                () -> "team-b/alpha should be Ready from alpha's objects and CNI, shows " + status("team-b"));
        assertFalse(status("team-b").containsKey("failureReason"), "team-b/alpha: " + status("team-b"));
    }
}
