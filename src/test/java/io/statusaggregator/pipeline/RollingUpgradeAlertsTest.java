package io.statusaggregator.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.alerts.AlertBridge;
import io.statusaggregator.alerts.Alertmanager;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Alerts that hold still, through the whole pipeline and the real Alertmanager: during a rolling upgrade of its workers
 * a cluster's Ready switches between {@code RollingUpgradeInProgress} and {@code OutdatedInformation} with changing
 * messages. One ClusterNotReady fires, keeps its start while its reason annotation follows, and resolves only once the
 * cluster is Ready.
 */
class RollingUpgradeAlertsTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final Duration NOT_READY_FOR = Duration.ofSeconds(2);

    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    final PipelineRun pipelineRun = new PipelineRun(kafka::bootstrapServers);

    /** What Alertmanager showed, sampled every 100 ms: the ClusterNotReady alerts of alpha at each sample. */
    private record Sample(long at, List<String> startsAt) {
    }

    @Test
    void aRollingUpgradeWhoseReasonsChangeFiresOneClusterNotReadyResolvedOnlyOnceReady() throws Exception {
        Fleet fleet = pipelineRun.fleet();
        try (Alertmanager alertmanager = Alertmanager.start()) {
            pipelineRun.start();
            fleet.createCluster("alpha", 1, 3);
            fleet.controlPlaneReady("alpha", 1);
            fleet.workers("alpha", 1, 3, 3, 3);
            Fleet.cilium(fleet.workloadCluster("alpha"), "v1.15.16-eksa.1", 1, 1);
            fleet.awaitReady("alpha");

            String id = pipelineRun.id();
            try (AlertBridge bridge = new AlertBridge(new AlertBridge.Settings(Map.of("bootstrap.servers", kafka.bootstrapServers()),
                    "transitions-" + id, "alerts-" + id, alertmanager.url(), NOT_READY_FOR, Duration.ofSeconds(30),
                    Duration.ofMillis(200)), Clock.systemUTC())) {
                bridge.start();
                Waiting.until(DEADLINE, bridge::caughtUp, () -> "the bridge did not read the transitions topic");
                List<Sample> samples = new CopyOnWriteArrayList<>();
                ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
                sampler.scheduleWithFixedDelay(() -> samples.add(new Sample(System.nanoTime(), notReady(alertmanager).stream()
                        .map(a -> a.path("startsAt").asText()).toList())), 0, 100, TimeUnit.MILLISECONDS);
                try {
                    // The workers roll: one of three updated, then the MachineDeployment's status behind its spec, and so on.
                    fleet.workers("alpha", 1, 3, 1, 3);
                    fleet.awaitCondition("alpha", "Ready", "False", "RollingUpgradeInProgress",
                            "Worker nodes not up-to-date yet, 2 upgrading (1 up to date)");
                    Waiting.until(DEADLINE, () -> !notReady(alertmanager).isEmpty(), () -> "ClusterNotReady did not fire");
                    Set<String> reasons = new ConcurrentSkipListSet<>();
                    step(fleet, alertmanager, reasons, 2, 1, "OutdatedInformation", "Worker node group md-0 status not up to date yet");
                    step(fleet, alertmanager, reasons, 1, 2, "RollingUpgradeInProgress", "Worker nodes not up-to-date yet, 1 upgrading (2 up to date)");
                    step(fleet, alertmanager, reasons, 2, 2, "OutdatedInformation", "Worker node group md-0 status not up to date yet");
                    step(fleet, alertmanager, reasons, 1, 2, "RollingUpgradeInProgress", "Worker nodes not up-to-date yet, 1 upgrading (2 up to date)");
                    assertEquals(Set.of("OutdatedInformation", "RollingUpgradeInProgress"), reasons);

                    long readyWritten = System.nanoTime();
                    fleet.workers("alpha", 1, 3, 3, 3);
                    fleet.awaitReady("alpha");
                    Waiting.until(DEADLINE, () -> alertmanager.alerts("cluster=\"default/alpha\"").isEmpty(),
                            () -> "alpha's alerts are still active once it is Ready: " + alertmanager.alerts("cluster=\"default/alpha\""));

                    List<Sample> seen = List.copyOf(samples);
                    Set<String> starts = new java.util.TreeSet<>();
                    seen.forEach(s -> starts.addAll(s.startsAt()));
                    assertEquals(1, starts.size(), "one ClusterNotReady, one start, through the upgrade: " + starts);
                    assertTrue(seen.stream().allMatch(s -> s.startsAt().size() <= 1), "never two ClusterNotReady at once");
                    long firstFired = seen.stream().filter(s -> !s.startsAt().isEmpty()).mapToLong(Sample::at).min().orElseThrow();
                    List<Sample> gaps = seen.stream().filter(s -> s.at() > firstFired && s.at() < readyWritten && s.startsAt().isEmpty()).toList();
                    assertEquals(List.of(), gaps, "ClusterNotReady resolved while alpha was not Ready");
                } finally {
                    sampler.shutdownNow();
                }
            }
        }
    }

    /** One step of the rolling workers; waits for Ready to show it and for the alert's reason to follow. */
    private static void step(Fleet fleet, Alertmanager alertmanager, Set<String> reasons, long observedGeneration, int updated,
            String reason, String message) {
        fleet.workers("alpha", observedGeneration, 3, updated, 3);
        fleet.awaitCondition("alpha", "Ready", "False", reason, message);
        Waiting.until(DEADLINE, () -> notReady(alertmanager).stream().anyMatch(a -> reason.equals(a.path("annotations").path("reason").asText())
                && message.equals(a.path("annotations").path("description").asText())), () -> "the alert's reason did not follow to "
                + reason + ": " + notReady(alertmanager));
        reasons.add(reason);
    }

    private static List<JsonNode> notReady(Alertmanager alertmanager) {
        return alertmanager.alerts("alertname=\"ClusterNotReady\"").stream()
                .filter(a -> "default/alpha".equals(a.path("labels").path("cluster").asText())).toList();
    }
}
