package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.statusaggregator.Pipeline;
import io.statusaggregator.aggregation.Aggregator;
import io.statusaggregator.aggregation.WantedWriter;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.topics.CompactedTopic;
import io.statusaggregator.kubernetes.KubernetesResources;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.writeback.StatusEvents;
import io.statusaggregator.writeback.StatusWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Beside EKS-A's own controller, which writes the same status fields on every reconcile: with the default
 * ({@code aggregator.status.writer=auto}) the aggregator steps aside for the Cluster after a second foreign write
 * instead of taking turns, says so once (log line, Warning Event, gauge) and goes on publishing its own verdict; with
 * {@code eksa} it writes nothing at all. The Fabric8 mock API server keeps no {@code metadata.managedFields}: here the
 * aggregator can tell the other writer only by its writes, not by its manager's name (a real server names it, and
 * the aggregator then steps aside before writing; StatusOwnershipTest covers that decision).
 */
class BesideEksaControllerTest {
    /** The stand-in requeues this often while not Ready (EKS-A: 10 s). */
    private static final Duration REQUEUE = Duration.ofMillis(300);
    private static final String ALPHA_STATUS =
            "/apis/anywhere.eks.amazonaws.com/v1alpha1/namespaces/default/clusters/alpha/status";

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    final PipelineRun pipelineRun = new PipelineRun(() -> kafka.bootstrapServers());

    @RegisterExtension
    final LogCapture warnings = new LogCapture(Level.WARNING);

    @Test
    void theAggregatorStepsAsideRatherThanTakeTurnsAndKeepsPublishingItsVerdict() throws Exception {
        Pipeline pipeline = pipelineRun.start();
        Fleet fleet = pipelineRun.fleet();
        fleet.createReady("alpha");

        // From here on: the aggregator's status writes of alpha (its PATCHes name its field manager), and every
        // transition of alpha's Ready as the API server serves it.
        AtomicInteger aggregatorWrites = new AtomicInteger();
        pipelineRun.kubernetes().answerInstead(request -> {
            if (request.getMethod().equals("PATCH") && request.getPath().startsWith(ALPHA_STATUS)
                    && request.getPath().contains("fieldManager=" + StatusWriter.FIELD_MANAGER)) {
                aggregatorWrites.incrementAndGet();
            }
            return null;
        });
        List<String> readiness = new CopyOnWriteArrayList<>();
        try (SharedIndexInformer<GenericKubernetesResource> watch = readyOf(pipelineRun.kubernetes().client(),
                readiness);
                EksaControllerStandIn eksa = new EksaControllerStandIn(pipelineRun.kubernetes().newClient(), "default",
                        "alpha", REQUEUE).start()) {
            Aggregator aggregator = pipeline.aggregator();
            await(DEADLINE, () -> aggregator.steppedAside() == 1,
                    () -> "the aggregator steps aside; Ready went " + readiness);
            int transitionsThen = transitions(readiness);
            int reconcilesThen = eksa.reconciles();
            // Several reconciles of the stand-in, each writing where the Cluster does not show its verdict.
            await(DEADLINE, () -> eksa.reconciles() >= reconcilesThen + 8, () -> "reconciles: " + eksa.reconciles());

            assertTrue(aggregatorWrites.get() <= 2, "the aggregator put the status back at most once: "
                    + aggregatorWrites.get() + " writes; Ready went " + readiness);
            assertEquals(transitionsThen, transitions(readiness), "no alternation once stepped aside: " + readiness);
            assertTrue(transitions(readiness) <= 3, "theirs, ours put back once, theirs: " + readiness);
            assertEquals(EksaControllerStandIn.REASON, fleet.condition("default", "alpha", "Ready").get("reason"),
                    "the stored verdict is EKS-A's");

            await(DEADLINE, () -> warningEvents().size() == 1, () -> "one Warning Event: " + warningEvents());
            Event told = warningEvents().get(0);
            assertEquals("Warning", told.getType());
            assertTrue(told.getNote().contains("stopped writing it")
                    && told.getNote().contains("Ready: stored False " + EksaControllerStandIn.REASON)
                    && told.getNote().contains("the aggregator's True"), told.getNote());
            assertEquals(1, warnings.lines().stream()
                    .filter(l -> l.contains("keeps setting the status of cluster default/alpha")).count(),
                    "one log line: " + warnings.lines());

            // Its own verdict still goes to the status topic (and the feeds), not to the Cluster.
            String statuses = "statuses-" + pipelineRun.id();
            await(DEADLINE, () -> statusOnTopic(statuses).matches("(?s).*\\{\"type\":\"Ready\",\"status\":\"True\".*"),
                    () -> "alpha Ready True on the status topic: " + statusOnTopic(statuses));
            fleet.workers("alpha", 1, 1, 1, 0);
            await(DEADLINE, () -> statusOnTopic(statuses)
                    .matches("(?s).*\\{\"type\":\"Ready\",\"status\":\"False\",\"reason\":\"ScalingUp\".*"),
                    () -> "its new verdict on the status topic: " + statusOnTopic(statuses));
            await(DEADLINE, aggregator::settled, aggregator::progress);
            assertTrue(aggregatorWrites.get() <= 2, "still no write: " + aggregatorWrites.get());
            assertEquals(EksaControllerStandIn.REASON, fleet.condition("default", "alpha", "Ready").get("reason"));
            assertEquals(1, warningEvents().size(), "the Warning Event once, and no status Event of the new verdict");
            assertEquals(1, aggregator.steppedAside(), "aggregator_status_stepped_aside_clusters");
        } finally {
            pipelineRun.kubernetes().answerInstead(null);
        }
    }

    @Test
    void withTheWantedWriterEksaTheAggregatorWritesNothingAndTheFeedsCarryItsVerdict() throws Exception {
        Pipeline.Settings auto = pipelineRun.settings();
        Aggregator.Settings a = auto.aggregatorSettings();
        Aggregator.Settings eksaWanted = new Aggregator.Settings(a.topic(), a.coalescingWindow(),
                a.longestCoalescingWindow(), a.echoTimeout(), a.rehearsal(), a.capiNamespace(), WantedWriter.EKSA,
                a.stepAsideWindow());
        Pipeline.Settings eksa = new Pipeline.Settings(auto.kafka(), auto.objectStatesTopic(), auto.statusesTopic(),
                auto.transitionsTopic(), auto.deadLettersTopic(), auto.createTopics(), auto.partitions(),
                auto.replicationFactor(), auto.groupId(), auto.ingest(), auto.ingestSettings(), eksaWanted,
                auto.writerSettings(), auto.cniSettings(), auto.compatibilityConfigMap(), auto.leadership());
        Pipeline pipeline = pipelineRun.start(eksa);
        Fleet fleet = pipelineRun.fleet();
        fleet.createCluster("alpha", 1, 1);
        try (EksaControllerStandIn controller = new EksaControllerStandIn(pipelineRun.kubernetes().newClient(),
                "default", "alpha", REQUEUE).start()) {
            fleet.controlPlaneReady("alpha", 1);
            fleet.workers("alpha", 1, 1, 1, 1);
            Fleet.cilium(fleet.workloadCluster("alpha"), "v1.15.16-eksa.1", 1, 1);

            String statuses = eksa.statusesTopic();
            await(DEADLINE, () -> statusOnTopic(statuses).matches("(?s).*\\{\"type\":\"Ready\",\"status\":\"True\".*"),
                    () -> "alpha Ready on the status topic: " + statusOnTopic(statuses));
            Aggregator aggregator = pipeline.aggregator();
            await(DEADLINE, aggregator::settled, aggregator::progress);

            int written = controller.writes();
            int reconciled = controller.reconciles();
            await(DEADLINE, () -> controller.reconciles() >= reconciled + 5,
                    () -> "reconciles: " + controller.reconciles());
            assertEquals(0, aggregator.writer().writes(), "no status written");
            assertEquals(written, controller.writes(), "EKS-A's verdict left alone: not written again");
            assertEquals(EksaControllerStandIn.REASON, fleet.condition("default", "alpha", "Ready").get("reason"));
            assertEquals(0, aggregator.steppedAside(), "nothing to step aside from");
            assertTrue(events().isEmpty(), "no Event recorded");
        }
    }

    private String statusOnTopic(String topic) {
        return CompactedTopic.latest(Map.of("bootstrap.servers", kafka.bootstrapServers()), topic, DEADLINE)
                .map(latest -> String.valueOf(latest.get("default/alpha"))).orElse("");
    }

    private List<Event> events() {
        return pipelineRun.kubernetes().client().events().v1().events().inNamespace("default").list().getItems();
    }

    private List<Event> warningEvents() {
        return events().stream().filter(e -> StatusEvents.STEPPED_ASIDE.equals(e.getReason())).toList();
    }

    /** Records alpha's Ready (status and reason) each time the API server serves it changed. */
    @SuppressWarnings("unchecked")
    private static SharedIndexInformer<GenericKubernetesResource> readyOf(KubernetesClient client,
            List<String> readiness) {
        return client.genericKubernetesResources(KubernetesResources.of(ObjectKind.EKSA_CLUSTER)).inNamespace("default")
                .withName("alpha").inform(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(GenericKubernetesResource cluster) {
                        seen(cluster);
                    }

                    @Override
                    public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource cluster) {
                        seen(cluster);
                    }

                    @Override
                    public void onDelete(GenericKubernetesResource cluster, boolean unknown) {
                    }

                    private void seen(GenericKubernetesResource cluster) {
                        Map<String, Object> status = (Map<String, Object>) cluster.getAdditionalProperties()
                                .getOrDefault("status", Map.of());
                        String ready = ((List<Map<String, Object>>) status.getOrDefault("conditions", List.of()))
                                .stream().filter(c -> "Ready".equals(c.get("type")))
                                .map(c -> c.get("status") + " " + c.getOrDefault("reason", "")).findFirst()
                                .orElse("none");
                        synchronized (readiness) {
                            if (readiness.isEmpty() || !readiness.get(readiness.size() - 1).equals(ready)) {
                                readiness.add(ready);
                            }
                        }
                    }
                });
    }

    /** The changes of Ready in {@code readiness}, its first value not counted. */
    private static int transitions(List<String> readiness) {
        return (int) Math.max(0, readiness.stream().filter(Objects::nonNull).count() - 1);
    }
}
