package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.CAPI;
import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.statusaggregator.Kubectl;
import io.statusaggregator.Pipeline;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.writeback.EventRecorder;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
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

    /** The pipeline's alpha, made Ready (with the Events of it recorded), and its fleet. */
    private Fleet alphaReady() {
        Fleet fleet = pipelineRun.fleet();
        fleet.createReady("alpha");
        await(DEADLINE, () -> event("Normal", "Ready", "Ready is True").isPresent(), () -> "no Ready event: " + events());
        return fleet;
    }

    /** The MachineDeployment reports itself not Ready with every replica up: WorkersReady False at severity Error. */
    private void alphaWorkersFail(Fleet fleet) {
        fleet.patchStatus(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "alpha-md-0", """
                {"status": {"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1,
                 "conditions": [{"type": "Ready", "status": "False"}]}}""");
        await(DEADLINE, () -> event("Warning", "MachineDeploymentNotReady", "Machine deployment alpha-md-0 not ready yet").isPresent(),
                () -> "no Warning for an Error condition: " + events());
    }

    @Test
    void eachConditionThatMovesIsAnEventOnTheClusterAndARepeatRaisesItsSeries() throws Exception {
        Pipeline pipeline = pipelineRun.start();
        Fleet fleet = alphaReady();
        String uid = fleet.get(ObjectKind.EKSA_CLUSTER, "default", "alpha").orElseThrow().getMetadata().getUid();

        Event ready = event("Normal", "Ready", "Ready is True").orElseThrow();
        assertEquals("anywhere.eks.amazonaws.com/v1alpha1", ready.getRegarding().getApiVersion());
        assertEquals("Cluster", ready.getRegarding().getKind());
        assertEquals(uid, ready.getRegarding().getUid(), "kubectl describe finds a Cluster's Events by its uid");
        assertEquals(EventRecorder.CONTROLLER, ready.getReportingController());
        assertTrue(!ready.getReportingInstance().isBlank(), "the replica that reported it");
        assertEquals("UpdateStatus", ready.getAction());
        assertTrue(event("Normal", "ControlPlaneInitialized", "ControlPlaneInitialized is True").isPresent(), "each condition: " + events());

        alphaWorkersFail(fleet);
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

    /**
     * On the embedded default, the real kubectl shows these Events where users look for them: {@code kubectl describe}
     * of the Cluster and {@code kubectl events --for} it. Both read {@code v1} Events by field selector, which the
     * embedded API serves from the {@code events.k8s.io/v1} ones the aggregator writes, as a real API server does.
     */
    @Test
    void kubectlDescribeAndKubectlEventsShowThemOnTheEmbeddedDefault() throws Exception {
        pipelineRun.start();
        alphaWorkersFail(alphaReady());
        Path kubeconfig = pipelineRun.kubernetes().writeKubeconfig(Files.createTempDirectory("kubectl").resolve("kubeconfig"));
        List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        pipelineRun.kubernetes().onRequest(request -> {
            String agent = request.getHeader("User-Agent");
            if (agent != null && agent.startsWith("kubectl") && request.getPath().contains("/events")) {
                asked.add(URLDecoder.decode(request.getPath(), StandardCharsets.UTF_8));
            }
        });

        Kubectl.Result describe = Kubectl.run(kubeconfig, Duration.ofSeconds(60), "describe", "cluster.anywhere.eks.amazonaws.com", "alpha");
        assertEquals(0, describe.exit(), describe::toString);
        assertEquals("", describe.err().strip(), "nothing on standard error: " + describe);
        String uid = pipelineRun.fleet().get(ObjectKind.EKSA_CLUSTER, "default", "alpha").orElseThrow().getMetadata().getUid();
        assertEquals(List.of(Set.of("involvedObject.name=alpha", "involvedObject.namespace=default", "involvedObject.kind=Cluster",
                "involvedObject.uid=" + uid)), selectors(asked), "describe's requests: " + asked);
        List<List<String>> described = columns(describe.out().substring(describe.out().indexOf("\nEvents:\n")));
        assertTrue(described.contains(List.of("Normal", "Ready", "statusaggregator.io/status-aggregator", "Ready is True")), describe::toString);
        assertTrue(described.contains(List.of("Warning", "MachineDeploymentNotReady", "statusaggregator.io/status-aggregator",
                "Machine deployment alpha-md-0 not ready yet")), describe::toString);

        Kubectl.Result events = Kubectl.run(kubeconfig, Duration.ofSeconds(60), "events", "--for", "cluster.anywhere.eks.amazonaws.com/alpha");
        assertEquals(0, events.exit(), events::toString);
        assertEquals("", events.err().strip(), "nothing on standard error: " + events);
        assertEquals(Set.of("involvedObject.kind=Cluster", "involvedObject.apiVersion=anywhere.eks.amazonaws.com/v1alpha1",
                "involvedObject.name=alpha"), selectors(asked).get(1), "kubectl events' requests: " + asked);
        List<List<String>> listed = columns(events.out());
        assertTrue(listed.contains(List.of("Normal", "Ready", "Cluster/alpha", "Ready is True")), events::toString);
        assertTrue(listed.contains(List.of("Warning", "MachineDeploymentNotReady", "Cluster/alpha", "Machine deployment alpha-md-0 not ready yet")),
                events::toString);

        // kubectl get lists each Event once in v1 (not also as the events.k8s.io/v1 object), as in events.k8s.io/v1.
        Kubectl.Result core = Kubectl.run(kubeconfig, Duration.ofSeconds(60), "get", "events", "-o", "name");
        Kubectl.Result written = Kubectl.run(kubeconfig, Duration.ofSeconds(60), "get", "events.events.k8s.io", "-o", "name");
        assertEquals(written.out().lines().map(line -> line.replace("event.events.k8s.io/", "event/")).toList(), core.out().lines().toList(),
                core + "\n" + written);
    }

    /** The field selectors (each as its terms, in any order: kubectl's is) of the v1 Events lists kubectl asked for. */
    private static List<Set<String>> selectors(List<String> asked) {
        String list = "/api/v1/namespaces/default/events?fieldSelector=";
        return asked.stream().filter(path -> path.startsWith(list) && path.endsWith("&limit=500"))
                .map(path -> Set.of(path.substring(list.length(), path.length() - "&limit=500".length()).split(","))).toList();
    }

    /**
     * kubectl's table lines, each as its columns (two spaces or more apart) without the age one (what holds a number
     * followed by s, m or h, with its series), which depends on the time the test took.
     */
    private static List<List<String>> columns(String table) {
        return table.lines().map(line -> java.util.Arrays.stream(line.strip().split("\\s{2,}"))
                .filter(column -> !column.matches("(<unknown>|\\d+[smhd]\\S*)( \\(x\\d+ over \\S+\\))?")).toList()).toList();
    }
}
