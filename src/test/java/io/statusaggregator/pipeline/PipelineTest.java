package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.CAPI;
import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.Pipeline;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.topics.CompactedTopic;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.versions.json.CompatibilityReader;
import io.statusaggregator.kubernetes.KubernetesResources;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole pipeline on a real in-process Kafka broker and the Fabric8 CRUD API server: objects written to the API
 * reach the EKS-A Cluster's status through the object-state topic, aggregation and write-back.
 */
class PipelineTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    final PipelineRun pipelineRun = new PipelineRun(() -> kafka.bootstrapServers());


    private Pipeline start(boolean ingest) throws Exception {
        return pipelineRun.start(Fleet.settings(kafka.bootstrapServers(), pipelineRun.id(), ingest));
    }


    @Test
    void aClusterCreatedScaledUpAndUpgradedShowsTheContractsStatusAtEachStep() throws Exception {
        start(true);
        pipelineRun.fleet().createCluster("alpha", 1, 1);
        var workload = pipelineRun.fleet().workloadCluster("alpha");
        Fleet.cilium(workload, "v1.15.16-eksa.1", 1, 0);
        pipelineRun.fleet().awaitCondition("alpha", "ControlPlaneInitialized", "False", "WaitingForControlPlaneInitialized", "First control plane not ready yet");
        pipelineRun.fleet().awaitCondition("alpha", "Ready", "False", "OutdatedInformation", "Control plane status not up to date yet");
        assertEquals(1, pipelineRun.fleet().observedGeneration("default", "alpha"));

        pipelineRun.fleet().controlPlaneReady("alpha", 1);
        pipelineRun.fleet().awaitCondition("alpha", "ControlPlaneInitialized", "True", "", "");
        pipelineRun.fleet().awaitCondition("alpha", "WorkersReady", "False", "OutdatedInformation", "Worker node group md-0 status not up to date yet");
        pipelineRun.fleet().workers("alpha", 1, 1, 1, 1);
        pipelineRun.fleet().awaitCondition("alpha", "Ready", "False", "WaitingForDefaultCNIConfigured", "Managed CNI not configured yet");
        Fleet.cilium(workload, "v1.15.16-eksa.1", 1, 1);
        pipelineRun.fleet().awaitReady("alpha");
        await(DEADLINE, () -> pipelineRun.fleet().versions("default", "alpha").containsKey("current") && !pipelineRun.fleet().versions("default", "alpha").containsKey("next"),
                () -> "Ready at its generation: the spec's version is current, nothing next: " + pipelineRun.fleet().versions("default", "alpha"));
        Object reached = pipelineRun.fleet().versions("default", "alpha").get("current");

        // Scale up: the user asks for 3 workers; CAPI has one ready so far.
        pipelineRun.fleet().patch(ObjectKind.EKSA_CLUSTER, "default", "alpha", """
                {"spec": {"workerNodeGroupConfigurations": [{"name": "md-0", "count": 3}]}}""");
        pipelineRun.fleet().patch(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "alpha-md-0", "{\"spec\": {\"replicas\": 3}}");
        pipelineRun.fleet().workers("alpha", 2, 3, 3, 1);
        pipelineRun.fleet().awaitCondition("alpha", "WorkersReady", "False", "ScalingUp", "Workers expected not ready yet, 3 replicas (actual 1)");
        assertEquals(2, pipelineRun.fleet().observedGeneration("default", "alpha"));
        assertEquals(reached, pipelineRun.fleet().versions("default", "alpha").get("current"), "the version reached stays current");
        assertTrue(pipelineRun.fleet().versions("default", "alpha").get("next") != null, "the new spec is next while it rolls out");
        pipelineRun.fleet().workers("alpha", 2, 3, 3, 3);
        pipelineRun.fleet().awaitReady("alpha");
        await(DEADLINE, () -> reached.equals(pipelineRun.fleet().versions("default", "alpha").get("last"))
                        && !pipelineRun.fleet().versions("default", "alpha").containsKey("next"),
                () -> "Ready again: the old version is last, the new one current: " + pipelineRun.fleet().versions("default", "alpha"));

        // Rolling upgrade: a new template; one of three workers replaced so far.
        pipelineRun.fleet().patch(ObjectKind.EKSA_CLUSTER, "default", "alpha", "{\"spec\": {\"kubernetesVersion\": \"1.32\"}}");
        pipelineRun.fleet().patch(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "alpha-md-0", "{\"spec\": {\"version\": \"v1.32.1\"}}");
        pipelineRun.fleet().workers("alpha", 3, 3, 1, 3);
        pipelineRun.fleet().awaitCondition("alpha", "WorkersReady", "False", "RollingUpgradeInProgress", "Worker nodes not up-to-date yet, 2 upgrading (1 up to date)");
        pipelineRun.fleet().awaitCondition("alpha", "Ready", "False", "RollingUpgradeInProgress", "Worker nodes not up-to-date yet, 2 upgrading (1 up to date)");
        // The MachineDeployment's events alone make the same conditions: the Cluster's own event (generation 3) comes
        // through another informer and may be computed a coalescing window later.
        await(DEADLINE, () -> pipelineRun.fleet().observedGeneration("default", "alpha") == 3,
                () -> "observedGeneration " + pipelineRun.fleet().observedGeneration("default", "alpha"));
        pipelineRun.fleet().workers("alpha", 3, 3, 3, 3);
        pipelineRun.fleet().awaitReady("alpha");
    }

    @Test
    void aClusterDeletedMidStreamLeavesNoStateNoErrorLoopAndATombstone() throws Exception {
        Pipeline pipeline = start(true);
        pipelineRun.fleet().createCluster("bravo", 1, 1);
        pipelineRun.fleet().createCluster("keep", 1, 1);
        pipelineRun.fleet().awaitCondition("bravo", "ControlPlaneInitialized", "False", "WaitingForControlPlaneInitialized", "First control plane not ready yet");
        pipelineRun.fleet().awaitCondition("keep", "ControlPlaneInitialized", "False", "WaitingForControlPlaneInitialized", "First control plane not ready yet");

        // Delete bravo while its CAPI objects are still changing.
        pipelineRun.fleet().controlPlaneReady("bravo", 1);
        pipelineRun.fleet().delete(ObjectKind.EKSA_CLUSTER, "default", "bravo");
        pipelineRun.fleet().delete(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "bravo");
        pipelineRun.fleet().delete(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "bravo-md-0");
        await(DEADLINE, () -> pipeline.aggregator().clustersTracked() == 1,
                () -> "tracked clusters: " + pipeline.aggregator().clustersTracked());

        // The other cluster is served as before.
        pipelineRun.fleet().controlPlaneReady("keep", 1);
        pipelineRun.fleet().awaitCondition("keep", "ControlPlaneInitialized", "True", "", "");
        long failures = pipeline.aggregator().writer().failures();
        long computations = pipeline.aggregator().computations();
        // An event that changes nothing the rules read lets time pass through the pipeline.
        pipelineRun.fleet().patch(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "keep", "{\"metadata\": {\"labels\": {\"touched\": \"yes\"}}}");
        await(DEADLINE, () -> pipeline.aggregator().computations() > computations, () -> "no computation");
        assertTrue(pipeline.aggregator().writer().failures() - failures <= 1,
                "no retry loop on the deleted cluster: failures went from " + failures + " to " + pipeline.aggregator().writer().failures());

        // The tombstone follows the deletion event on the transitions topic, once the broker has that.
        await(DEADLINE, () -> {
            Map<String, String> statuses = latestValues("statuses-" + pipelineRun.id());
            return statuses.containsKey("default/bravo") && statuses.get("default/bravo") == null;
        }, () -> "the status topic ends with a tombstone for the deleted cluster: " + latestValues("statuses-" + pipelineRun.id()).keySet());
        assertTrue(latestValues("statuses-" + pipelineRun.id()).get("default/keep") != null, "and holds the status of the other");
    }

    @Test
    void aStartWhoseStatusTopicCannotBeReadFailsNamingIt() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort(); // no broker answers there once it is closed
        }
        Pipeline.Settings fleet = Fleet.settings("127.0.0.1:" + closed, pipelineRun.id(), false);
        // The topics are not created here (as with aggregator.create-topics=false): the status topic is the first read.
        Pipeline.Settings settings = new Pipeline.Settings(fleet.kafka(), fleet.objectStatesTopic(), fleet.statusesTopic(),
                fleet.transitionsTopic(), fleet.deadLettersTopic(), false, fleet.partitions(), fleet.replicationFactor(),
                fleet.groupId(), false, fleet.ingestSettings(), fleet.aggregatorSettings(), fleet.writerSettings(),
                fleet.cniSettings(), fleet.compatibilityConfigMap(), fleet.leadership());
        Pipeline pipeline = new Pipeline(settings, pipelineRun.kubernetes().newClient(), CompatibilityReader.builtIn(), Clock.systemUTC());
        try {
            TimeoutException failed = assertThrows(TimeoutException.class, () -> pipeline.start(Duration.ofSeconds(3)));
            assertTrue(failed.getMessage().contains("could not read topic " + settings.statusesTopic()), failed.getMessage());
        } finally {
            pipeline.close();
        }
    }

    @Test
    void aRestartedAggregatorRebuildsAndWritesNothingWhenNothingChanged() throws Exception {
        Pipeline first = start(true);
        pipelineRun.fleet().createCluster("charlie", 1, 1);
        pipelineRun.fleet().controlPlaneReady("charlie", 1);
        pipelineRun.fleet().workers("charlie", 1, 1, 1, 1);
        Fleet.cilium(pipelineRun.fleet().workloadCluster("charlie"), "v1.15.16-eksa.1", 1, 1);
        pipelineRun.fleet().createCluster("waiting", 3, 2);
        pipelineRun.fleet().awaitReady("charlie");
        pipelineRun.fleet().awaitCondition("waiting", "Ready", "False", "OutdatedInformation", "Control plane status not up to date yet");
        await(DEADLINE, () -> first.aggregator().settled(), () -> "the first instance is not settled: " + first.aggregator().progress());
        first.close();

        Pipeline second = start(true);
        await(DEADLINE, () -> second.aggregator().live() && second.aggregator().computations() >= 2,
                () -> "rebuild: live=" + second.aggregator().live() + ", computations=" + second.aggregator().computations());
        long computations = second.aggregator().computations();
        // An event that changes nothing the rules read: a new label on a MachineDeployment.
        pipelineRun.fleet().patch(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "charlie-md-0", "{\"metadata\": {\"labels\": {\"touched\": \"yes\"}}}");
        await(DEADLINE, () -> second.aggregator().computations() > computations, () -> "no computation after an event");
        assertEquals(0, second.aggregator().submitted(), "nothing changed, so nothing is written");
        assertEquals(0, second.aggregator().writer().writes());
    }

    @Test
    void aBurstOfMachineUpdatesForOneClusterYieldsFarFewerWritesThanEvents() throws Exception {
        Pipeline pipeline = start(true);
        pipelineRun.fleet().createCluster("delta", 1, 4);
        pipelineRun.fleet().controlPlaneReady("delta", 1);
        pipelineRun.fleet().workers("delta", 1, 4, 4, 4);
        Fleet.cilium(pipelineRun.fleet().workloadCluster("delta"), "v1.15.16-eksa.1", 4, 4);
        for (int i = 0; i < 4; i++) {
            pipelineRun.fleet().create(ObjectKind.MACHINE, """
                    apiVersion: cluster.x-k8s.io/v1beta1
                    kind: Machine
                    metadata: {namespace: %s, name: delta-md-0-%d, labels: {cluster.x-k8s.io/deployment-name: delta-md-0}}
                    spec: {clusterName: delta, version: v1.31.2}
                    """.formatted(CAPI, i));
        }
        pipelineRun.fleet().awaitReady("delta");
        long eventsBefore = pipeline.aggregator().events();
        long writesBefore = pipeline.aggregator().writer().writes();

        // 100 Machine updates, 25 rounds over the 4 machines: each round moves them all between 1.31 and 1.32 (so
        // the status flips between Ready and a rolling upgrade); the last round leaves them on 1.31.
        long burstStart = System.nanoTime();
        for (int i = 0; i < 100; i++) {
            int round = i / 4;
            String version = ((24 - round) % 2 == 0 ? "v1.31." : "v1.32.") + i;
            pipelineRun.fleet().patch(ObjectKind.MACHINE, CAPI, "delta-md-0-" + (i % 4), "{\"spec\": {\"version\": \"" + version + "\"}}");
        }
        long burstMillis = Duration.ofNanos(System.nanoTime() - burstStart).toMillis();
        await(DEADLINE, () -> pipeline.aggregator().events() - eventsBefore >= 100,
                () -> "events seen: " + (pipeline.aggregator().events() - eventsBefore));
        pipelineRun.fleet().awaitReady("delta");
        long writes = pipeline.aggregator().writer().writes() - writesBefore;
        // Bound: at most one write per coalescing window (200 ms) the burst spans, plus the window after it and the
        // final status; without coalescing, every round of the burst (25) would flip the status and write.
        long bound = burstMillis / 200 + 2;
        System.out.printf("burst: 100 Machine updates in %d ms -> %d status writes (bound %d)%n", burstMillis, writes, bound);
        assertTrue(writes <= bound && writes < 25, "100 events in " + burstMillis + " ms made " + writes + " status writes");
    }

    @Test
    void deletionsAndChangesWhileIngestWasDownConvergeWhenItStartsAgain() throws Exception {
        Pipeline first = start(true);
        pipelineRun.fleet().createCluster("lima", 1, 1);
        pipelineRun.fleet().createCluster("mike", 1, 1);
        pipelineRun.fleet().awaitCondition("lima", "Ready", "False", "OutdatedInformation", "Control plane status not up to date yet");
        pipelineRun.fleet().awaitCondition("mike", "Ready", "False", "OutdatedInformation", "Control plane status not up to date yet");
        await(DEADLINE, () -> first.aggregator().settled(), () -> "the first instance is not settled: " + first.aggregator().progress());
        first.close();

        // While nothing watches: mike is deleted with its CAPI objects, lima's control plane comes up.
        pipelineRun.fleet().delete(ObjectKind.EKSA_CLUSTER, "default", "mike");
        pipelineRun.fleet().delete(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "mike");
        pipelineRun.fleet().delete(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "mike-md-0");
        pipelineRun.fleet().controlPlaneReady("lima", 1);

        Pipeline second = start(true);
        pipelineRun.fleet().awaitCondition("lima", "ControlPlaneInitialized", "True", "", "");
        await(DEADLINE, () -> second.aggregator().clustersTracked() == 1,
                () -> "clusters tracked after the restart: " + second.aggregator().clustersTracked());
        // The tombstone follows the deletion event on the transitions topic, once the broker has that.
        await(DEADLINE, () -> {
            Map<String, String> statuses = latestValues("statuses-" + pipelineRun.id());
            return statuses.containsKey("default/mike") && statuses.get("default/mike") == null;
        }, () -> "the cluster deleted while ingest was down ends with a tombstone: " + latestValues("statuses-" + pipelineRun.id()));
        Map<String, String> objects = latestValues("object-states-" + pipelineRun.id());
        assertTrue(objects.entrySet().stream().filter(e -> e.getKey().startsWith("mike/")).allMatch(e -> e.getValue() == null),
                "every object of mike is tombstoned on the object-state topic: " + objects.keySet());
    }

    @Test
    @SuppressWarnings("unchecked")
    void aMissingEksaReleaseIsAFailureUntilTheReleaseExists() throws Exception {
        start(true);
        pipelineRun.fleet().createCluster("november", 1, 1);
        pipelineRun.fleet().patch(ObjectKind.EKSA_CLUSTER, "default", "november", "{\"spec\": {\"eksaVersion\": \"v0.24.0\"}}");
        java.util.function.Supplier<Map<String, Object>> status = () -> pipelineRun.fleet().get(ObjectKind.EKSA_CLUSTER, "default", "november")
                .map(c -> (Map<String, Object>) c.getAdditionalProperties().getOrDefault("status", Map.of())).orElse(Map.of());
        await(DEADLINE, () -> "eksarelease eksa-v0-24-0 could not be found on the management cluster".equals(status.get().get("failureMessage"))
                && "EksaVersionInvalid".equals(status.get().get("failureReason")), () -> "status: " + status.get());

        pipelineRun.kubernetes().client().genericKubernetesResources(io.statusaggregator.kubernetes.KubernetesResources.RELEASES).inNamespace(CAPI)
                .resource(pipelineRun.kubernetes().client().getKubernetesSerialization().unmarshal("""
                        apiVersion: anywhere.eks.amazonaws.com/v1alpha1
                        kind: EKSARelease
                        metadata: {name: eksa-v0-24-0, namespace: eksa-system}
                        spec: {version: v0.24.0}
                        """, io.fabric8.kubernetes.api.model.GenericKubernetesResource.class)).create();
        await(DEADLINE, () -> !status.get().containsKey("failureReason"), () -> "the failure is not cleared: " + status.get());
    }

    /** The latest value of every key of a topic, read from the beginning to its end (null for a tombstone). */
    private static Map<String, String> latestValues(String topic) {
        return CompactedTopic.latest(Map.of("bootstrap.servers", kafka.bootstrapServers()), topic, DEADLINE)
                .orElseThrow(() -> new AssertionError("could not read " + topic + " to its end within " + DEADLINE));
    }
}
