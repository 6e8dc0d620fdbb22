package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.CAPI;
import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.statusaggregator.Pipeline;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.embedded.EmbeddedKubernetes;
import io.statusaggregator.embedded.ForgetfulRestart;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.versions.json.CompatibilityReader;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * DefaultCNIConfigured and defaultCNI from the workload cluster itself: a second mock API server plays each
 * workload cluster, reached through the CAPI kubeconfig secret, with the Cilium DaemonSet in kube-system.
 */
class CniObservationTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    private static final int WORKLOAD_CONNECTIONS = 3;
    /** Every log record of the test, to check that no credential reaches the log. */
    private final List<String> logged = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final java.util.logging.Handler capture = new java.util.logging.Handler() {
        @Override
        public void publish(java.util.logging.LogRecord record) {
            logged.add(String.valueOf(record.getMessage()) + " " + java.util.Arrays.toString(record.getParameters())
                    + " " + (record.getThrown() == null ? "" : record.getThrown().toString()));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private EmbeddedKubernetes management;
    private Fleet fleet;
    private Pipeline pipeline;

    @BeforeEach
    void start() throws Exception {
        management = EmbeddedKubernetes.start(0);
        fleet = new Fleet(management.client());
        logged.clear();
        java.util.logging.Logger.getLogger("").addHandler(capture);
        pipeline = new Pipeline(Fleet.settings(kafka.bootstrapServers(), UUID.randomUUID().toString().substring(0, 8), true,
                        WORKLOAD_CONNECTIONS),
                management.newClient(), CompatibilityReader.builtIn(), Clock.systemUTC());
        pipeline.start(DEADLINE);
    }

    @AfterEach
    void stop() {
        pipeline.close();
        fleet.close();
        management.close();
        java.util.logging.Logger.getLogger("").removeHandler(capture);
        assertTrue(logged.stream().noneMatch(line -> line.contains("secret-token-")),
                "a workload cluster's credentials reached the log");
    }

    /** A cluster whose control plane and workers are ready; only its CNI is left to observe. */
    private void readyCluster(String name, String cniConfig) {
        fleet.createCluster(name, 1, 1, cniConfig);
        fleet.controlPlaneReady(name, 1);
        fleet.workers(name, 1, 1, 1, 1);
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> defaultCni(String cluster) {
        return fleet.get(ObjectKind.EKSA_CLUSTER, "default", cluster)
                .map(c -> (Map<String, Object>) c.getAdditionalProperties().get("status"))
                .map(s -> (Map<String, Object>) s.get("defaultCNI"))
                .orElse(Map.of());
    }

    /** A cluster ready but for its Cilium, which runs on two nodes and is ready on one; its workload API. */
    private NamespacedKubernetesClient ciliumNotReadyYet(String name) {
        readyCluster(name, "{cilium: {}}");
        NamespacedKubernetesClient workload = fleet.workloadCluster(name);
        Fleet.cilium(workload, "v1.15.16-eksa.1", 2, 1);
        fleet.awaitCondition(name, "DefaultCNIConfigured", "False", "WaitingForDefaultCNIConfigured", "Managed CNI not configured yet");
        return workload;
    }

    @Test
    void theCniBecomingReadyMakesTheClusterReadyWithItsVersionApplied() {
        NamespacedKubernetesClient workload = ciliumNotReadyYet("alpha");
        fleet.awaitCondition("alpha", "Ready", "False", "WaitingForDefaultCNIConfigured", "Managed CNI not configured yet");

        Fleet.cilium(workload, "v1.15.16-eksa.1", 2, 2);
        fleet.awaitReady("alpha");
        fleet.awaitCondition("alpha", "DefaultCNIConfigured", "True", "", "");
        assertEquals(Map.of("name", "cilium", "version", "v1.15.16-eksa.1", "status", "Applied"), defaultCni("alpha"));
    }

    @Test
    void anOlderCiliumThanTheReleaseShipsIsAnUpgradeInProgress() {
        readyCluster("bravo", "{cilium: {}}");
        Fleet.cilium(fleet.workloadCluster("bravo"), "v1.14.12-eksa.3", 1, 1);
        fleet.awaitCondition("bravo", "DefaultCNIConfigured", "False", "DefaultCNIUpgradeInProgress", "Cilium version upgrade needed");
        fleet.awaitCondition("bravo", "Ready", "False", "DefaultCNIUpgradeInProgress", "Cilium version upgrade needed");
        assertEquals(Map.of("name", "cilium", "version", "v1.14.12-eksa.3", "status", "NotApplied"), defaultCni("bravo"));
    }

    @Test
    void skippedCiliumUpgradesWarnWithoutHoldingReadyBack() {
        readyCluster("charlie", "{cilium: {skipUpgrade: true}}");
        Fleet.cilium(fleet.workloadCluster("charlie"), "v1.14.12-eksa.3", 1, 1);
        fleet.awaitCondition("charlie", "DefaultCNIConfigured", "False", "SkipUpgradesForDefaultCNIConfigured",
                "Configured to skip default Cilium CNI upgrades");
        assertEquals("Warning", fleet.condition("default", "charlie", "DefaultCNIConfigured").get("severity"));
        fleet.awaitReady("charlie");
    }

    @Test
    void aWorkloadApiGoingAwayMarksItsOwnClusterOnlyWithinTheStatedTime() {
        readyCluster("delta", "{cilium: {}}");
        readyCluster("echo", "{cilium: {}}");
        Fleet.cilium(fleet.workloadCluster("delta"), "v1.15.16-eksa.1", 1, 1);
        Fleet.cilium(fleet.workloadCluster("echo"), "v1.15.16-eksa.1", 1, 1);
        fleet.awaitReady("delta");
        fleet.awaitReady("echo");

        long gone = System.nanoTime();
        fleet.workloadServer("delta").close(); // delta's workload API stops answering
        // Stated time: the stale threshold (2 s here; aggregator.cni.stale-after) plus one check interval and the
        // pipeline's own latency, well within 15 s.
        await(Duration.ofSeconds(15), () -> String.valueOf(fleet.condition("default", "delta", "DefaultCNIConfigured").get("message"))
                        .startsWith("Managed CNI state unknown: workload cluster API http://"),
                () -> "delta: " + fleet.condition("default", "delta", "DefaultCNIConfigured"));
        System.out.printf("workload API gone -> status says so after %d ms%n", Duration.ofNanos(System.nanoTime() - gone).toMillis());
        Map<String, Object> ready = fleet.condition("default", "delta", "Ready");
        assertEquals("False", ready.get("status"));
        assertEquals("Warning", ready.get("severity"));

        // The other cluster is unaffected, and still followed.
        fleet.awaitReady("echo");
        fleet.workers("echo", 1, 1, 1, 0);
        fleet.awaitCondition("echo", "WorkersReady", "False", "ScalingUp", "Workers expected not ready yet, 1 replicas (actual 0)");
    }

    @Test
    void aDaemonSetWatchTheWorkloadApiRefusesIsRelistedAndLaterChangesObserved() {
        NamespacedKubernetesClient workload = ciliumNotReadyYet("mike");

        // The workload API restarts having compacted its history: the DaemonSet's watch cannot start again where it was.
        AtomicInteger refused = ForgetfulRestart.restart(fleet.workloadServer("mike"));
        await(DEADLINE, () -> refused.get() > 0, () -> "the DaemonSet's watch was not refused");
        Fleet.cilium(workload, "v1.15.16-eksa.1", 2, 2);
        fleet.awaitReady("mike");
    }

    @Test
    void aSecretHoldingGarbageGivesAClearReasonAndNothingElseBreaks() {
        readyCluster("foxtrot", "{cilium: {}}");
        fleet.kubeconfigSecret("foxtrot", "this is: [not a kubeconfig");
        fleet.awaitCondition("foxtrot", "DefaultCNIConfigured", "False", "WaitingForDefaultCNIConfigured",
                "Managed CNI state unknown: kubeconfig secret eksa-system/foxtrot-kubeconfig does not hold a usable kubeconfig");

        // Logged just after the observation is published, on the observer's thread: not necessarily before the status.
        await(DEADLINE, () -> logged.stream().anyMatch(line -> line.contains("does not hold a usable kubeconfig")), () -> "the problem is not logged");
        assertTrue(logged.stream().noneMatch(line -> line.contains("[not a kubeconfig")), "but not the secret's content");

        readyCluster("golf", "{cilium: {}}");
        Fleet.cilium(fleet.workloadCluster("golf"), "v1.15.16-eksa.1", 1, 1);
        fleet.awaitReady("golf");
    }

    /**
     * A kubeconfig that would have the aggregator run a command to get a token (or read a file of its pod) is refused
     * before any client is made: whoever may write a secret in the CAPI namespace runs nothing in the aggregator.
     */
    @Test
    void aKubeconfigThatWouldRunACommandIsRefused() throws Exception {
        readyCluster("hotel", "{cilium: {}}");
        java.nio.file.Path ran = java.nio.file.Files.createTempDirectory("exec-").resolve("ran");
        fleet.kubeconfigSecret("hotel", """
                apiVersion: v1
                kind: Config
                clusters: [{name: w, cluster: {server: "https://127.0.0.1:1"}}]
                users: [{name: w, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: touch, args: ["%s"]}}}]
                contexts: [{name: w, context: {cluster: w, user: w}}]
                current-context: w
                """.formatted(ran));
        fleet.awaitCondition("hotel", "DefaultCNIConfigured", "False", "WaitingForDefaultCNIConfigured",
                "Managed CNI state unknown: kubeconfig secret eksa-system/hotel-kubeconfig is refused: its user has exec, and only "
                        + "credentials written into the kubeconfig are used");
        assertFalse(java.nio.file.Files.exists(ran), "the command did not run");
    }

    @Test
    void clustersBeyondTheConnectionLimitAreReportedAndObservedOnceAConnectionIsFree() {
        List<String> names = List.of("hotel", "india", "juliet", "kilo");
        for (String name : names) {
            readyCluster(name, "{cilium: {}}");
            Fleet.cilium(fleet.workloadCluster(name), "v1.15.16-eksa.1", 1, 1);
        }
        String limited = "Managed CNI state unknown: not observed: the aggregator's limit of 3 workload cluster connections is reached";
        await(DEADLINE, () -> names.stream().filter(n -> "True".equals(fleet.condition("default", n, "Ready").get("status"))).count() == 3
                        && names.stream().filter(n -> limited.equals(fleet.condition("default", n, "DefaultCNIConfigured").get("message"))).count() == 1,
                () -> "three clusters Ready and one reported beyond the limit: "
                        + names.stream().map(n -> n + "=" + fleet.condition("default", n, "DefaultCNIConfigured")).toList());
        String waiting = names.stream().filter(n -> limited.equals(fleet.condition("default", n, "DefaultCNIConfigured").get("message")))
                .findFirst().orElseThrow();

        String deleted = names.stream().filter(n -> !n.equals(waiting)).findFirst().orElseThrow();
        fleet.delete(ObjectKind.EKSA_CLUSTER, "default", deleted);
        fleet.awaitReady(waiting);
    }

    @Test
    void compatibilityDataFromAConfigMapTakesEffectWithoutARestart() {
        readyCluster("lima", "{cilium: {}}");
        Fleet.cilium(fleet.workloadCluster("lima"), "v1.15.16-eksa.1", 1, 1);
        fleet.awaitReady("lima");

        // The operator's data says EKS-A v0.23 ships a newer Cilium than the one running.
        var configMaps = management.client().configMaps().inNamespace(CAPI);
        configMaps.resource(new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                .withNewMetadata().withName(Fleet.COMPATIBILITY_CONFIGMAP).withNamespace(CAPI).endMetadata()
                .addToData("compatibility.yaml", """
                        version: "override-1"
                        releaseLines:
                          - eksa: v0.23
                            kubernetes: ["1.31", "1.32"]
                            cilium: [{from: v0.23.0, version: v1.16.0-eksa.1}]
                        """)
                .build()).create();
        fleet.awaitCondition("lima", "DefaultCNIConfigured", "False", "DefaultCNIUpgradeInProgress", "Cilium version upgrade needed");

        // A document that does not read is refused; the data in force stays.
        configMaps.withName(Fleet.COMPATIBILITY_CONFIGMAP).edit(map -> {
            map.getData().put("compatibility.yaml", "releaseLines: [{eksa: v0.23, cilium: [{from: v0.24.0, version: x}]}]");
            return map;
        });
        await(DEADLINE, () -> logged.stream().anyMatch(l -> l.contains("does not hold a valid compatibility document")),
                () -> "the invalid document is not reported");
        assertEquals("DefaultCNIUpgradeInProgress", fleet.condition("default", "lima", "DefaultCNIConfigured").get("reason"));

        // Without the ConfigMap, the built-in data is in force again.
        configMaps.withName(Fleet.COMPATIBILITY_CONFIGMAP).delete();
        fleet.awaitReady("lima");
    }
}
