package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.statusaggregator.Pipeline;
import io.statusaggregator.aggregation.Aggregator;
import io.statusaggregator.embedded.EmbeddedKafka;
import io.statusaggregator.embedded.ForgetfulRestart;
import io.statusaggregator.topics.CompactedTopic;
import io.statusaggregator.model.CapiApiVersion;
import io.statusaggregator.model.ObjectKind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fault suite: the whole pipeline on a real in-process broker and the mock API server (a CAPI v1.13 management
 * cluster: the Cluster API objects at v1beta2, the deprecated v1beta1 block included), with the broker stopped
 * and restarted, every watch ended by an API server restart, another writer on the status, and seeded
 * random sequences of changes interleaved with all of these. After each, the state must converge ({@link Convergence}):
 * statuses equal to the rules applied to the final objects, on the Clusters, on the status topic and at the end of
 * the transitions feed. {@code mvn verify -Pfaults} runs longer sequences (see the README).
 */
@Tag("faults")
class FaultSuiteTest {
    /** Convergence after a fault: the clients' reconnection backoff and a rebuild fit well within it. */
    private static final Duration CONVERGE = Duration.ofSeconds(90);
    private static EmbeddedKafka kafka;

    /** On a CAPI v1.13 management cluster: the Cluster API objects at v1beta2, as CAPI writes them there. */
    @RegisterExtension
    final PipelineRun pipelineRun = new PipelineRun(() -> kafka.bootstrapServers(), CapiApiVersion.V1BETA2);

    @BeforeAll
    static void broker() throws Exception {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        kafka.close();
    }

    private Convergence convergence() {
        return new Convergence(pipelineRun.kubernetes().client(), Map.of("bootstrap.servers", kafka.bootstrapServers()),
                "statuses-" + pipelineRun.id(), "transitions-" + pipelineRun.id(), "object-states-" + pipelineRun.id(),
                pipelineRun.fleet().capi());
    }

    private void awaitConverged(String after) {
        Convergence convergence = convergence();
        List<List<String>> last = new ArrayList<>(List.of(List.of()));
        await(CONVERGE, () -> {
            last.set(0, convergence.divergences());
            return last.get(0).isEmpty();
        }, () -> "no convergence after " + after + ":\n  " + String.join("\n  ", last.get(0)));
    }

    @Test
    void brokerStoppedAndRestartedDuringChurnLosesNoStatusUpdate() throws Exception {
        pipelineRun.start();
        Churn churn = new Churn(pipelineRun.fleet(), 11, 4);
        for (int i = 0; i < 20; i++) {
            churn.step();
        }
        kafka.stopBroker();
        try {
            // Changes made while the broker is down reach the informers; ingest must get them to Kafka later.
            for (int i = 0; i < 20; i++) {
                churn.step();
            }
        } finally {
            kafka.startBroker();
        }
        for (int i = 0; i < 20; i++) {
            churn.step();
        }
        awaitConverged("a broker restart in the middle of " + churn.changes() + " changes");
    }

    @Test
    void theApiServerRestartsEndingEveryWatchAndObjectsAreDeletedMeanwhile() throws Exception {
        pipelineRun.start();
        Churn churn = new Churn(pipelineRun.fleet(), 23, 3);
        for (int i = 0; i < 10; i++) {
            churn.step();
        }
        awaitConverged("the first changes");
        // Every watch ends, and cannot start again from where it was; meanwhile objects are deleted and changed.
        AtomicInteger refused = ForgetfulRestart.restart(pipelineRun.kubernetes());
        pipelineRun.fleet().delete(ObjectKind.MACHINE_DEPLOYMENT, Fleet.CAPI, "c1-md-0");
        pipelineRun.fleet().delete(ObjectKind.EKSA_CLUSTER, "default", "c2");
        pipelineRun.fleet().delete(ObjectKind.KUBEADM_CONTROL_PLANE, Fleet.CAPI, "c2");
        pipelineRun.fleet().delete(ObjectKind.MACHINE_DEPLOYMENT, Fleet.CAPI, "c2-md-0");
        pipelineRun.fleet().workers("c0", 1, 3, 3, 3);

        // The deletions reach the object-state topic as tombstones, and everything converges.
        Map<String, Object> broker = Map.of("bootstrap.servers", kafka.bootstrapServers());
        List<Map<String, String>> objects = new ArrayList<>(List.of(Map.of()));
        await(CONVERGE, () -> {
            objects.set(0, CompactedTopic.latest(broker, "object-states-" + pipelineRun.id(), Duration.ofSeconds(10)).orElseThrow());
            return objects.get(0).entrySet().stream().filter(e -> e.getKey().startsWith("c2/") || e.getKey().startsWith("c1/MachineDeployment"))
                    .allMatch(e -> e.getValue() == null);
        }, () -> "c2's objects and c1's node group end in tombstones: " + objects.get(0).entrySet().stream()
                .filter(e -> e.getKey().startsWith("c2/") || e.getKey().startsWith("c1/MachineDeployment"))
                .filter(e -> e.getValue() != null).map(Map.Entry::getKey).toList() + " refused " + refused.get());
        awaitConverged("a restarted API server");
        assertTrue(refused.get() > 0, "watches from before the restart were refused");
    }

    @Test
    void anotherWriterOnTheStatusIsPutBackOnceThenSteppedAsideForWithoutAWriteLoop() throws Exception {
        Pipeline pipeline = pipelineRun.start();
        Churn churn = new Churn(pipelineRun.fleet(), 37, 2);
        for (int i = 0; i < 10; i++) {
            churn.step();
        }
        awaitConverged("the first changes");
        long before = pipeline.aggregator().writer().writes();

        // Another writer's idea of the status, once (a person's kubectl edit, say): put back.
        String theirs = """
                {"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "",
                 "message": "someone else's", "lastTransitionTime": "2020-01-01T00:00:00Z"}]}}""";
        pipelineRun.fleet().patchStatus(ObjectKind.EKSA_CLUSTER, "default", "c0", theirs);
        awaitConverged("an overwrite");
        // A write is counted once its PATCH has returned; the Cluster may show it (converged) a moment before.
        await(Fleet.DEADLINE, () -> pipeline.aggregator().writer().writes() > before,
                () -> "the overwrite put right, " + (pipeline.aggregator().writer().writes() - before)
                        + " writes counted");
        long corrective = pipeline.aggregator().writer().writes() - before;
        // One write puts it right; the bound leaves one more for an overwrite seen twice (its own echo).
        assertTrue(corrective <= 2, "one overwrite took " + corrective + " writes to put right");

        // Again, within the step-aside window: another writer keeps writing; the aggregator leaves the status to it.
        pipelineRun.fleet().patchStatus(ObjectKind.EKSA_CLUSTER, "default", "c0", theirs);
        await(CONVERGE, () -> pipeline.aggregator().steppedAside() == 1, () -> "stepped aside from c0");
        await(CONVERGE, pipeline.aggregator()::settled, pipeline.aggregator()::progress);
        assertEquals("someone else's", pipelineRun.fleet().condition("default", "c0", "Ready").get("message"));
        assertEquals(before + corrective, pipeline.aggregator().writer().writes(),
                "no write after the second overwrite");
        // c0 no longer converges (its status is the other writer's); the rest of the test is about c1.
        pipelineRun.fleet().delete(ObjectKind.EKSA_CLUSTER, "default", "c0");
        awaitConverged("c0 deleted");

        // Conflicts: just before each of the next three status writes, another writer changes the Cluster (a label), so
        // that the write, on condition of the version its status was computed from, is refused with 409; the status is
        // computed again from the Cluster's newer state and written.
        AtomicInteger refused = new AtomicInteger();
        pipelineRun.kubernetes().answerInstead(request -> {
            if (request.getMethod().equals("PATCH") && request.getPath().startsWith(C1 + "/status") && refused.getAndIncrement() < 3) {
                String label = "{\"metadata\": {\"labels\": {\"touched-by-another-writer\": \"" + refused.get() + "\"}}}";
                pipelineRun.kubernetes().serve(new RecordedRequest(request.getHttpVersion(), request.method(), C1, request.getHeaders(),
                        new Buffer(label.getBytes(StandardCharsets.UTF_8))));
            }
            return null;
        });
        long beforeConflicts = pipeline.aggregator().writer().writes();
        long failedBefore = pipeline.aggregator().writer().failures();
        pipelineRun.fleet().workers("c1", 1, 2, 2, 2);
        pipelineRun.fleet().patch(ObjectKind.EKSA_CLUSTER, "default", "c1", """
                {"spec": {"workerNodeGroupConfigurations": [{"name": "md-0", "count": 2}]}}""");
        awaitConverged("three conflicts");
        pipelineRun.kubernetes().answerInstead(null);
        assertTrue(refused.get() >= 3, "the conflicts were met: " + refused.get());
        assertTrue(pipeline.aggregator().writer().failures() - failedBefore >= 3,
                "each refused: " + (pipeline.aggregator().writer().failures() - failedBefore));
        long afterConflicts = pipeline.aggregator().writer().writes() - beforeConflicts;
        assertTrue(afterConflicts <= 3, "a change and three conflicts took " + afterConflicts + " successful writes");
    }

    @Test
    void aStatusWriteHeldUpLongerThanTheEchoTimeoutKeepsTheTimeOfItsChange() throws Exception {
        Duration echoTimeout = Duration.ofSeconds(1);
        Pipeline.Settings s = pipelineRun.settings();
        pipelineRun.start(new Pipeline.Settings(s.kafka(), s.objectStatesTopic(), s.statusesTopic(), s.transitionsTopic(),
                s.deadLettersTopic(), s.createTopics(), s.partitions(), s.replicationFactor(), s.groupId(), s.ingest(), s.ingestSettings(),
                new Aggregator.Settings(s.aggregatorSettings().topic(), s.aggregatorSettings().coalescingWindow(),
                        s.aggregatorSettings().longestCoalescingWindow(), echoTimeout, s.aggregatorSettings().rehearsal(),
                        s.aggregatorSettings().capiNamespace()),
                s.writerSettings(), s.cniSettings(), s.compatibilityConfigMap(), s.leadership()));
        // The API server answers the cluster's status writes with 503 (overloaded) for three echo timeouts; the writer
        // retries all along. No echo can come before the write is done, so the write is not given up on meanwhile.
        List<Instant> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
        pipelineRun.kubernetes().answerInstead(request -> {
            if (!request.getMethod().equals("PATCH") || !request.getPath().startsWith("/apis/anywhere.eks.amazonaws.com/v1alpha1/namespaces/default/clusters/held/status")) {
                return null;
            }
            refused.add(Instant.now());
            return new MockResponse().setResponseCode(503).setBody("overloaded");
        });
        pipelineRun.fleet().createCluster("held", 1, 1);
        await(CONVERGE, () -> refused.size() > 1 && Duration.between(refused.get(0), refused.get(refused.size() - 1)).compareTo(echoTimeout.multipliedBy(3)) > 0,
                () -> "status writes refused for three echo timeouts: " + refused);
        pipelineRun.kubernetes().answerInstead(null);
        awaitConverged("status writes refused for " + Duration.between(refused.get(0), refused.get(refused.size() - 1)));

        // The conditions appeared with the first computation, before the first refused write; computed again against
        // the Cluster's own (empty) status on an expired echo, they would carry a time seconds later.
        Instant firstRefused = refused.get(0);
        for (String type : List.of("ControlPlaneInitialized", "Ready")) {
            Instant since = Instant.parse((String) pipelineRun.fleet().condition("default", "held", type).get("lastTransitionTime"));
            assertTrue(!since.isAfter(firstRefused), type + " appeared at " + since + ", after the first write was refused at " + firstRefused);
        }
    }

    private static final String C1 = "/apis/anywhere.eks.amazonaws.com/v1alpha1/namespaces/default/clusters/c1";

    /**
     * Seeded random sequences of changes interleaved with the faults above and with a restart of the aggregator: the
     * fixed seeds of {@code -Dfaults.seeds=S1,S2} (the pom's list, run by every build), then
     * {@code -Dfaults.sequences=N} new random seeds, each printed (1 by default; 20 with {@code -Pfaults});
     * {@code -Dfaults.seed=S} replays that one alone.
     * Between two changes the pipeline catches up (the state converges), so that each change that moves a status is a
     * status transition of its own, not merged with the next by the coalescing window: a sequence whose changes moved
     * no status would test nothing, and the transitions per fault are reported.
     */
    @Test
    void randomSequencesWithFaultsConverge() throws Exception {
        List<Long> seeds = seeds();
        int sequences = seeds.size();
        int faults = 0;
        long changes = 0;
        long writes = 0;
        long distinctStatuses = 0;
        for (int s = 0; s < sequences; s++) {
            long seed = seeds.get(s);
            System.out.printf("fault suite: sequence %d of %d, seed %d (replay: -Dfaults.seed=%d)%n", s + 1, sequences,
                    seed, seed);
            if (s > 0) {
                pipelineRun.end();
                pipelineRun.begin();
            }
            Random random = new Random(seed);
            pipelineRun.start();
            Churn churn = new Churn(pipelineRun.fleet(), seed, 3 + random.nextInt(4));
            overwritten.clear();
            int steps = 30 + random.nextInt(50);
            int faultsHere = 0;
            for (int i = 0; i < steps; i++) {
                churn.step();
                if (random.nextInt(12) == 0) {
                    faultsHere++;
                    inject(random.nextInt(4), churn, random);
                }
                awaitConverged("change " + (i + 1) + " of the sequence with seed " + seed);
            }
            faults += faultsHere;
            changes += churn.changes();
            final long currentSeed = seed;
            try {
                awaitConverged("sequence with seed " + seed);
            } catch (AssertionError e) {
                throw new AssertionError("seed " + currentSeed + ": " + e.getMessage(), e);
            }
            writes += pipelineRun.writes();
            long transitions = convergence().statusChanges();
            distinctStatuses += transitions;
            System.out.printf("fault suite: seed %d: %d changes, %d faults, %d status transitions (%.1f per fault)%n", seed,
                    churn.changes(), faultsHere, transitions, faultsHere == 0 ? 0.0 : (double) transitions / faultsHere);
        }
        // Most changes move a status (counts, readiness, specs, deletions); a suite far short of that tested little. Counted
        // over the suite: one sequence's random churn may move few (seed 2971491960024157101: 19 for 90 changes).
        assertTrue(distinctStatuses >= changes / 4, "only " + distinctStatuses + " status transitions for " + changes + " changes");
        System.out.printf("fault suite: %d sequences, %d changes, %d faults injected, 0 divergences; %d status writes for %d "
                + "distinct statuses (%.2f per distinct status, foreign overwrites included)%n", sequences, changes, faults, writes,
                distinctStatuses, (double) writes / distinctStatuses);
    }

    /** The seeds to run: {@code faults.seed} alone, or the fixed {@code faults.seeds} and new random ones. */
    static List<Long> seeds() {
        Long replay = Long.getLong("faults.seed");
        if (replay != null) {
            return List.of(replay);
        }
        List<Long> seeds = new ArrayList<>();
        for (String fixed : System.getProperty("faults.seeds", "").split(",")) {
            if (!fixed.isBlank()) {
                seeds.add(Long.parseLong(fixed.trim()));
            }
        }
        Random fresh = new Random();
        for (int i = Integer.getInteger("faults.sequences", 1); i > 0; i--) {
            seeds.add(fresh.nextLong());
        }
        return seeds;
    }

    /** The clusters of the sequence under way whose status another writer overwrote. */
    private final java.util.Set<String> overwritten = new java.util.HashSet<>();

    private void inject(int fault, Churn churn, Random random) throws Exception {
        switch (fault) {
            case 0 -> {
                kafka.stopBroker();
                try {
                    for (int i = 0; i < 3; i++) {
                        churn.step();
                    }
                } finally {
                    kafka.startBroker();
                }
            }
            case 1 -> {
                ForgetfulRestart.restart(pipelineRun.kubernetes());
                for (int i = 0; i < 3; i++) {
                    churn.step();
                }
            }
            case 2 -> {
                // A person's edit: once per cluster, or the aggregator would rightly step aside for a writer that keeps
                // writing, and the cluster converge on that writer's status (anotherWriterOnTheStatus... covers that).
                List<String> clusters = churn.clusters().stream().filter(c -> !overwritten.contains(c)).toList();
                if (clusters.isEmpty()) {
                    return;
                }
                String name = clusters.get(random.nextInt(clusters.size()));
                overwritten.add(name);
                try {
                    pipelineRun.fleet().patchStatus(ObjectKind.EKSA_CLUSTER, "default", name, """
                            {"status": {"observedGeneration": 99, "conditions": [{"type": "Ready", "status": "True", "message": "someone else's"}]}}""");
                } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                    assertEquals(404, e.getCode(), "only a deleted cluster refuses: " + e);
                }
            }
            default -> {
                // The aggregator stops and another starts in its place (a rolling update), while changes go on.
                pipelineRun.stop(pipelineRun.pipelines().get(0));
                churn.step();
                pipelineRun.start();
            }
        }
    }
}
