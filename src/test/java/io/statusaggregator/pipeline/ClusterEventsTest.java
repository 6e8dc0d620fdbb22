package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.CAPI;
import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.statusaggregator.Pipeline;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.writeback.EventRecorder;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kubernetes Events on the EKS-A Cluster, through the whole pipeline: one for each condition that moves, Warning at
 * severity Error, the same one again raising its series rather than making another object, each attached to the
 * Cluster by its uid (as {@code kubectl describe} finds them) and saying which controller and replica reported it.
 */
class ClusterEventsTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    final PipelineRun pipelineRun = new PipelineRun(kafka::bootstrapServers);

    private List<Event> events() {
        return pipelineRun.kubernetes().client().events().v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> "alpha".equals(e.getRegarding().getName())).toList();
    }

    private Optional<Event> event(String type, String reason, String note) {
        return events().stream().filter(e -> type.equals(e.getType()) && reason.equals(e.getReason()) && note.equals(e.getNote())).findFirst();
    }

    @Test
    void eachConditionThatMovesIsAnEventOnTheClusterAndARepeatRaisesItsSeries() throws Exception {
        Pipeline pipeline = pipelineRun.start();
        Fleet fleet = pipelineRun.fleet();
        fleet.createCluster("alpha", 1, 1);
        fleet.controlPlaneReady("alpha", 1);
        fleet.workers("alpha", 1, 1, 1, 1);
        Fleet.cilium(fleet.workloadCluster("alpha"), "v1.15.16-eksa.1", 1, 1);
        fleet.awaitReady("alpha");
        await(DEADLINE, () -> event("Normal", "Ready", "Ready is True").isPresent(), () -> "no Ready event: " + events());
        String uid = fleet.get(ObjectKind.EKSA_CLUSTER, "default", "alpha").orElseThrow().getMetadata().getUid();

        Event ready = event("Normal", "Ready", "Ready is True").orElseThrow();
        assertEquals("anywhere.eks.amazonaws.com/v1alpha1", ready.getRegarding().getApiVersion());
        assertEquals("Cluster", ready.getRegarding().getKind());
        assertEquals(uid, ready.getRegarding().getUid(), "kubectl describe finds a Cluster's Events by its uid");
        assertEquals(EventRecorder.CONTROLLER, ready.getReportingController());
        assertTrue(!ready.getReportingInstance().isBlank(), "the replica that reported it");
        assertEquals("UpdateStatus", ready.getAction());
        assertTrue(event("Normal", "ControlPlaneInitialized", "ControlPlaneInitialized is True").isPresent(), "each condition: " + events());

        // The MachineDeployment reports itself not Ready with every replica up: WorkersReady False at severity Error.
        fleet.patchStatus(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "alpha-md-0", """
                {"status": {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1,
                 "conditions": [{"type": "Ready", "status": "False"}]}}""");
        await(DEADLINE, () -> event("Warning", "MachineDeploymentNotReady", "Machine deployment alpha-md-0 not ready yet").isPresent(),
                () -> "no Warning for an Error condition: " + events());
        fleet.workers("alpha", 1, 1, 1, 1);
        fleet.awaitReady("alpha");
        await(DEADLINE, () -> event("Normal", "Ready", "Ready is True").map(e -> e.getSeries() != null && e.getSeries().getCount() == 2).orElse(false),
                () -> "Ready True again within six minutes raises the series to 2: " + event("Normal", "Ready", "Ready is True"));
        assertEquals(1, events().stream().filter(e -> "Ready".equals(e.getReason()) && "Normal".equals(e.getType())).count(),
                "one object for the series");
        assertEquals(0, pipeline.events().failed(), "no Event refused");

        // Deleted, with its objects, and made again under the same name: its Events are attached to the new Cluster,
        // not to the old one's uid.
        fleet.delete(ObjectKind.EKSA_CLUSTER, "default", "alpha");
        fleet.delete(ObjectKind.KUBEADM_CONTROL_PLANE, CAPI, "alpha");
        fleet.delete(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "alpha-md-0");
        await(DEADLINE, () -> pipeline.aggregator().clustersTracked() == 0, () -> "alpha forgotten");
        fleet.createCluster("alpha", 1, 1);
        await(DEADLINE, () -> fleet.get(ObjectKind.EKSA_CLUSTER, "default", "alpha").map(c -> !c.getMetadata().getUid().equals(uid)).orElse(false),
                () -> "alpha made again");
        String again = fleet.get(ObjectKind.EKSA_CLUSTER, "default", "alpha").orElseThrow().getMetadata().getUid();
        await(DEADLINE, () -> events().stream().anyMatch(e -> again.equals(e.getRegarding().getUid())),
                () -> "no Event on the Cluster made again (uid " + again + "): " + events().stream().map(e -> e.getRegarding().getUid() + " "
                        + e.getReason()).toList());
    }
}
