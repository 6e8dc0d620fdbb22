package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.CAPI;
import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.statusaggregator.Pipeline;
import io.statusaggregator.aggregation.DeadLetters;
import io.statusaggregator.aggregation.DeadLetterReason;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.topics.ClusterPartitioner;
import io.statusaggregator.topics.CompactedTopic;
import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.operations.PipelineMetrics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad input on the whole pipeline (real broker, CRUD API server): records on the object-state topic that aggregation
 * cannot use reach the dead-letter topic once, unchanged and with their reason, while the partition they sit on keeps
 * serving its clusters; an object from the API that cannot be read shows on its own cluster's status only.
 */
class DeadLettersTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    final PipelineRun pipelineRun = new PipelineRun(() -> kafka.bootstrapServers());
    @RegisterExtension
    final LogCapture logged = new LogCapture(java.util.logging.Level.INFO);
    /** Partitions of the topics the test pipelines create (Fleet.settings). */
    private static final int PARTITIONS = 3;


    /** A record written straight to the object-state topic, where it landed, and what its dead letter must say. */
    private record Poison(DeadLetterReason reason, String errorMentions, byte[] key, byte[] value, RecordMetadata sent) {
    }

    @Test
    void poisonRecordsAreDeadLetteredOnceUnchangedWithTheirReasonWhileTheirPartitionKeepsFlowing() throws Exception {
        Pipeline first = pipelineRun.start();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new PipelineMetrics(registry).bind(first);
        pipelineRun.fleet().createCluster("alpha", 1, 1);
        pipelineRun.fleet().awaitCondition("alpha", "Ready", "False", "OutdatedInformation", "Control plane status not up to date yet");

        // Poison on alpha's partition, between its events; the objects' keys name another cluster of that partition.
        int partition = ObjectStateKey.partitionOf("alpha", PARTITIONS);
        String ghost = IntStream.range(0, 1000).mapToObj(i -> "ghost-" + i)
                .filter(name -> ObjectStateKey.partitionOf(name, PARTITIONS) == partition).findFirst().orElseThrow();
        List<Poison> poison = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            poison.add(send(producer, partition, DeadLetterReason.UNKNOWN_KEY, "not a key this application writes",
                    "not a key".getBytes(StandardCharsets.UTF_8), "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"}"
                            .getBytes(StandardCharsets.UTF_8)));
            // Not even UTF-8: it must come out byte for byte. And as large as the topic takes (Kafka's default limit,
            // 1 MiB, less the batch's own bytes): with the dead-letter headers added it is over the 1 MiB a producer
            // sends by default, so the letter is only sent with DeadLetters.MAX_LETTER_BYTES.
            byte[] start = {'{', '"', 'k', 'i', 'n', 'd', '"', ':', ' ', (byte) 0xff, (byte) 0xfe};
            byte[] notJson = java.util.Arrays.copyOf(start, 1_048_200);
            java.util.Arrays.fill(notJson, start.length, notJson.length, (byte) 'x');
            poison.add(send(producer, partition, DeadLetterReason.NOT_JSON, "the value is not JSON", machineKey(ghost, "m0"), notJson));
            poison.add(send(producer, partition, DeadLetterReason.UNKNOWN_KIND, "kind \"ConfigMap\"", machineKey(ghost, "m1"),
                    "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"m1\"}}".getBytes(StandardCharsets.UTF_8)));
            poison.add(send(producer, partition, DeadLetterReason.MALFORMED_OBJECT,
                    "Machine eksa-system/" + ghost + "-m2 cannot be read: spec.version: not a Kubernetes version", machineKey(ghost, "m2"), """
                    {"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Machine", "metadata": {"namespace": "eksa-system", "name": "%s-m2"},
                     "spec": {"clusterName": "%s", "version": "one point thirty"}}""".formatted(ghost, ghost).getBytes(StandardCharsets.UTF_8)));
        }

        // The partition keeps flowing: alpha's later events reach its status.
        pipelineRun.fleet().controlPlaneReady("alpha", 1);
        pipelineRun.fleet().workers("alpha", 1, 1, 1, 1);
        Fleet.cilium(pipelineRun.fleet().workloadCluster("alpha"), "v1.15.16-eksa.1", 1, 1);
        pipelineRun.fleet().awaitReady("alpha");

        await(DEADLINE, () -> readDeadLetters().size() >= poison.size(), () -> "dead letters: " + readDeadLetters().size());
        List<ConsumerRecord<byte[], byte[]>> letters = readDeadLetters();
        assertEquals(poison.size(), letters.size(), "one dead letter per poison record");
        Map<Long, ConsumerRecord<byte[], byte[]>> byOffset = letters.stream()
                .collect(Collectors.toMap(letter -> Long.parseLong(header(letter, DeadLetters.OFFSET)), letter -> letter));
        for (Poison record : poison) {
            ConsumerRecord<byte[], byte[]> letter = byOffset.get(record.sent().offset());
            assertNotNull(letter, "no dead letter for offset " + record.sent().offset() + " (" + record.reason() + ")");
            assertArrayEquals(record.key(), letter.key(), record.reason() + ": the key unchanged");
            assertArrayEquals(record.value(), letter.value(), record.reason() + ": the value unchanged");
            assertEquals(record.reason().code(), header(letter, DeadLetters.REASON));
            assertEquals("object-states-" + pipelineRun.id(), header(letter, DeadLetters.TOPIC));
            assertEquals(Integer.toString(partition), header(letter, DeadLetters.PARTITION));
            assertEquals(Long.toString(record.sent().timestamp()), header(letter, DeadLetters.TIMESTAMP));
            assertTrue(header(letter, DeadLetters.ERROR).contains(record.errorMentions()),
                    record.reason() + ": the error says why: " + header(letter, DeadLetters.ERROR));
            assertEquals("poison-" + record.reason().code(), header(letter, "trace-id"), "the record's own headers are kept");
        }
        for (DeadLetterReason reason : poison.stream().map(Poison::reason).toList()) {
            await(DEADLINE, () -> deadLettersCounted(registry, reason) == 1,
                    () -> "aggregator_dead_letters_total{reason=" + reason.code() + "}: " + deadLettersCounted(registry, reason));
        }
        assertEquals(0, registry.find("aggregator_dead_letter_failures").functionCounter().count());

        // A restart (a new instance, same topics and group) rebuilds from the beginning of the partition, through the
        // poison again, but sends only what arrived while no instance ran.
        await(DEADLINE, first.aggregator()::settled, () -> "not settled: " + first.aggregator().progress());
        first.close();
        Poison whileStopped;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            whileStopped = send(producer, partition, DeadLetterReason.NOT_JSON, "the value is not JSON", machineKey(ghost, "m3"),
                    "<html>".getBytes(StandardCharsets.UTF_8));
        }
        Pipeline second = pipelineRun.start();
        DeadLetters again = second.aggregator().deadLetters();
        await(DEADLINE, () -> second.aggregator().live() && again.sent(DeadLetterReason.NOT_JSON) + again.failed() >= 1 && again.inFlight() == 0,
                () -> "the record sent while stopped is not dead-lettered: " + second.aggregator().progress());
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            assertEquals(reason == DeadLetterReason.NOT_JSON ? 1 : 0, again.sent(reason), reason.code() + " dead letters after the restart");
        }
        assertEquals(0, again.failed());
        List<ConsumerRecord<byte[], byte[]>> after = readDeadLetters();
        assertEquals(poison.size() + 1, after.size(), "the earlier poison is not sent again");
        assertEquals(Set.of(whileStopped.sent().offset()), after.stream().map(letter -> Long.parseLong(header(letter, DeadLetters.OFFSET)))
                .filter(offset -> !byOffset.containsKey(offset)).collect(Collectors.toSet()));
        // And it serves alpha as before.
        pipelineRun.fleet().workers("alpha", 1, 1, 1, 0);
        pipelineRun.fleet().awaitCondition("alpha", "Ready", "False", "ScalingUp", "Workers expected not ready yet, 1 replicas (actual 0)");
    }

    @Test
    void aReplicaJoiningAServedGroupRehearsesItsRebuildFirstAndCarriesOutNothingOfTheRehearsal() throws Exception {
        Pipeline first = pipelineRun.start();
        pipelineRun.fleet().createCluster("alpha", 1, 1);
        pipelineRun.fleet().awaitCondition("alpha", "Ready", "False", "OutdatedInformation", "Control plane status not up to date yet");
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            send(producer, ObjectStateKey.partitionOf("alpha", PARTITIONS), DeadLetterReason.NOT_JSON, "the value is not JSON",
                    machineKey("alpha", "m9"), "<html>".getBytes(StandardCharsets.UTF_8));
        }
        await(DEADLINE, () -> readDeadLetters().size() == 1 && first.aggregator().settled(),
                () -> "dead letters " + readDeadLetters().size() + ", " + first.aggregator().progress());
        assertTrue(rehearsalLines().isEmpty(), "the first replica, alone in its group, joined without a rehearsal: " + rehearsalLines());

        // A second replica joins while the first serves every partition: it rehearses its rebuild first, then joins.
        Pipeline second = pipelineRun.start(Fleet.settings(kafka.bootstrapServers(), pipelineRun.id(), false));
        await(DEADLINE, () -> second.aggregator().live() && second.aggregator().progress().matches("partitions \\[\\d.*"),
                () -> "the second replica holds no partition: " + second.aggregator().progress());
        List<String> rehearsal = rehearsalLines();
        assertEquals(2, rehearsal.size(), "the second replica says it rehearses, then what it rehearsed: " + rehearsal);
        java.util.regex.Matcher rehearsed = java.util.regex.Pattern
                .compile("rehearsed the rebuild in [0-9.]+ s: ([0-9,]+) records of 3 partitions, ([0-9,]+) computations").matcher(rehearsal.get(1));
        assertTrue(rehearsed.find(), "every partition read, not cut short: " + rehearsal.get(1));
        assertTrue(Long.parseLong(rehearsed.group(1).replace(",", "")) > 1 && Long.parseLong(rehearsed.group(2).replace(",", "")) >= 1,
                "the topic read and alpha computed: " + rehearsal.get(1));
        // It read the poison record (twice: rehearsing, then rebuilding), and carried out nothing of the rehearsal.
        DeadLetters ofSecond = second.aggregator().deadLetters();
        assertEquals(0, ofSecond.sent(DeadLetterReason.NOT_JSON) + ofSecond.inFlight() + ofSecond.failed());
        assertEquals(0, second.aggregator().submitted(), "alpha's status was already right: nothing to write");
        assertEquals(1, readDeadLetters().size(), "the poison record is dead-lettered once");

        // Both serve: alpha's next change reaches its status, whichever replica holds it.
        pipelineRun.fleet().controlPlaneReady("alpha", 1);
        pipelineRun.fleet().workers("alpha", 1, 1, 1, 1);
        Fleet.cilium(pipelineRun.fleet().workloadCluster("alpha"), "v1.15.16-eksa.1", 1, 1);
        pipelineRun.fleet().awaitReady("alpha");
    }

    private List<String> rehearsalLines() {
        return logged.lines().stream().filter(line -> line.contains("rehears")).toList();
    }

    @Test
    @SuppressWarnings("unchecked")
    void anUnreadableObjectFromTheApiShowsOnItsOwnClusterOnlyAndClearsWhenFixed() throws Exception {
        Pipeline pipeline = pipelineRun.start();
        for (String name : List.of("alpha", "bravo", "charlie")) {
            pipelineRun.fleet().createCluster(name, 1, 1);
            pipelineRun.fleet().controlPlaneReady(name, 1);
            pipelineRun.fleet().workers(name, 1, 1, 1, 1);
            Fleet.cilium(pipelineRun.fleet().workloadCluster(name), "v1.15.16-eksa.1", 1, 1);
        }
        for (String name : List.of("alpha", "bravo", "charlie")) {
            pipelineRun.fleet().awaitReady(name);
        }

        // alpha: CAPI reports a nonsense count on its MachineDeployment.
        pipelineRun.fleet().patchStatus(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "alpha-md-0", "{\"status\": {\"replicas\": -3}}");
        String mdProblem = "MachineDeployment eksa-system/alpha-md-0 cannot be read: status.replicas: must not be negative, got -3";
        pipelineRun.fleet().awaitCondition("alpha", "WorkersReady", "False", "MalformedObject", mdProblem);
        pipelineRun.fleet().awaitCondition("alpha", "Ready", "False", "MalformedObject", mdProblem);
        assertEquals("Error", pipelineRun.fleet().condition("default", "alpha", "Ready").get("severity"));
        assertEquals("True", pipelineRun.fleet().condition("default", "alpha", "ControlPlaneReady").get("status"), "what can be read is still computed");

        // bravo: a user stores a Kubernetes version that does not parse (no webhook in front of this API server).
        pipelineRun.fleet().patch(ObjectKind.EKSA_CLUSTER, "default", "bravo", "{\"spec\": {\"kubernetesVersion\": \"1.x\"}}");
        String specProblem = "EKS-A Cluster default/bravo cannot be read: spec.kubernetesVersion: not a Kubernetes version of the form "
                + "MAJOR.MINOR (like \"1.27\"): \"1.x\"";
        pipelineRun.fleet().awaitCondition("bravo", "Ready", "False", "MalformedObject", specProblem);
        Map<String, Object> bravo = (Map<String, Object>) pipelineRun.fleet().get(ObjectKind.EKSA_CLUSTER, "default", "bravo").orElseThrow()
                .getAdditionalProperties().get("status");
        assertEquals("MalformedObject", bravo.get("failureReason"));
        assertEquals(specProblem, bravo.get("failureMessage"));
        assertEquals(2, pipelineRun.fleet().observedGeneration("default", "bravo"), "the generation looked at");
        assertEquals("Unknown", pipelineRun.fleet().condition("default", "bravo", "ControlPlaneReady").get("status"), "nothing to compute it from");
        assertEquals("True", pipelineRun.fleet().condition("default", "bravo", "ControlPlaneInitialized").get("status"), "the latch holds");

        // The others are unaffected.
        await(DEADLINE, pipeline.aggregator()::settled, () -> "not settled: " + pipeline.aggregator().progress());
        assertEquals("True", pipelineRun.fleet().condition("default", "charlie", "Ready").get("status"), "charlie: " + pipelineRun.fleet().condition("default", "charlie", "Ready"));
        assertEquals("MalformedObject", pipelineRun.fleet().condition("default", "alpha", "Ready").get("reason"));

        // Each went to the dead-letter topic once: its next states (the echo of bravo's status) say nothing new.
        // A dead letter is counted when the broker acknowledges it, after aggregation moved on: wait for every ack.
        await(DEADLINE, () -> pipeline.aggregator().deadLetters().inFlight() == 0,
                () -> "dead letters still on their way: " + pipeline.aggregator().deadLetters().inFlight());
        assertEquals(2, pipeline.aggregator().deadLetters().sent(DeadLetterReason.MALFORMED_OBJECT), "dead letters of unreadable objects");
        List<String> letters = readDeadLetters().stream().map(letter -> header(letter, DeadLetters.ERROR)).sorted().toList();
        assertEquals(List.of(specProblem, mdProblem), letters);

        // Fixed, both are computed again; bravo's failure clears.
        pipelineRun.fleet().patchStatus(ObjectKind.MACHINE_DEPLOYMENT, CAPI, "alpha-md-0", "{\"status\": {\"replicas\": 1}}");
        pipelineRun.fleet().patch(ObjectKind.EKSA_CLUSTER, "default", "bravo", "{\"spec\": {\"kubernetesVersion\": \"1.31\"}}");
        pipelineRun.fleet().awaitReady("alpha");
        pipelineRun.fleet().awaitReady("bravo");
        bravo = (Map<String, Object>) pipelineRun.fleet().get(ObjectKind.EKSA_CLUSTER, "default", "bravo").orElseThrow().getAdditionalProperties().get("status");
        assertEquals(null, bravo.get("failureReason"), "bravo's status: " + bravo);
    }

    /**
     * A record that only looks like ingest's (a good key, an object of alpha's) for an object the API server does not
     * have: it shows on alpha until the periodic reconciliation sends its tombstone, within the configured period.
     */
    @Test
    void aRecordOfAnObjectTheApiServerDoesNotHaveIsTombstonedWithinTheReconcilePeriod() throws Exception {
        Duration every = Duration.ofSeconds(2);
        readyAlphaReconciledEvery(every);
        String stray = sendStrayMachine("stray");
        long sentAt = System.nanoTime();
        awaitTombstone(stray, Duration.ofSeconds(30));
        long tombstonedAfter = Duration.ofNanos(System.nanoTime() - sentAt).toMillis();
        System.out.printf("stray record tombstoned %d ms after it was written (reconciliation every %s)%n", tombstonedAfter, every);
        assertTrue(tombstonedAfter < every.multipliedBy(2).plusSeconds(5).toMillis(), "tombstoned after " + tombstonedAfter + " ms");
        pipelineRun.fleet().awaitReady("alpha");
    }

    /**
     * A tombstone that something but ingest wrote for alpha's KubeadmControlPlane, which the API server has: aggregation
     * forgets the control plane, and the periodic reconciliation sends its state again within the period, so alpha
     * comes back Ready without the object changing.
     */
    @Test
    void aTombstoneOfAnObjectTheApiServerHasIsAnsweredWithItsStateWithinTheReconcilePeriod() throws Exception {
        Duration every = Duration.ofSeconds(2);
        readyAlphaReconciledEvery(every);
        String key = new ObjectStateKey("alpha", ObjectKind.KUBEADM_CONTROL_PLANE, new ObjectKey(CAPI, "alpha")).encode();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>("object-states-" + pipelineRun.id(), ObjectStateKey.partitionOf("alpha", PARTITIONS),
                    key.getBytes(StandardCharsets.UTF_8), null)).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
        long sentAt = System.nanoTime();
        String topic = "object-states-" + pipelineRun.id();
        await(every.multipliedBy(2).plusSeconds(10), () -> CompactedTopic.latest(Map.of("bootstrap.servers", kafka.bootstrapServers()),
                topic, DEADLINE).map(latest -> latest.get(key) != null).orElse(false), () -> "the state of " + key + " was not sent again");
        System.out.printf("a foreign tombstone answered with the object's state %d ms after it was written (reconciliation every %s)%n",
                Duration.ofNanos(System.nanoTime() - sentAt).toMillis(), every);
        pipelineRun.fleet().awaitReady("alpha");
    }

    /**
     * The same stray record with a reconciliation period far beyond the test: an API server that restarts and forgets
     * its history makes the informers list again, and the check that follows every relist tombstones the record.
     */
    @Test
    void aRecordOfAnObjectTheApiServerDoesNotHaveIsTombstonedAfterARelist() throws Exception {
        Duration every = Duration.ofMinutes(30);
        readyAlphaReconciledEvery(every);
        String stray = sendStrayMachine("stray-after-relist");
        long restartedAt = System.nanoTime();
        io.statusaggregator.embedded.ForgetfulRestart.restart(pipelineRun.kubernetes());
        awaitTombstone(stray, Duration.ofSeconds(60));
        System.out.printf("stray record tombstoned %d ms after the API server restarted (watches refused, informers relisted after 3 s; "
                + "reconciliation period %s)%n", Duration.ofNanos(System.nanoTime() - restartedAt).toMillis(), every);
        pipelineRun.fleet().awaitReady("alpha");
    }

    /** A pipeline that checks its topic against the API server every {@code every}, and alpha Ready on it. */
    private void readyAlphaReconciledEvery(Duration every) throws Exception {
        pipelineRun.start(Fleet.settings(pipelineRun.bootstrapServers(), pipelineRun.id(), true, 50, every));
        pipelineRun.fleet().createReady("alpha");
    }

    /** Writes a record of Machine alpha-NAME, which the API server does not have; returns its key. */
    private String sendStrayMachine(String name) throws Exception {
        byte[] key = machineKey("alpha", name);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            send(producer, ObjectStateKey.partitionOf("alpha", PARTITIONS), DeadLetterReason.MALFORMED_OBJECT, "", key, ("""
                    {"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Machine", "metadata": {"namespace": "eksa-system", "name": "alpha-%s",
                     "labels": {"cluster.x-k8s.io/cluster-name": "alpha"}}, "spec": {"clusterName": "alpha", "version": "one point thirty"}}"""
                    .formatted(name)).getBytes(StandardCharsets.UTF_8));
        }
        return new String(key, StandardCharsets.UTF_8);
    }

    private void awaitTombstone(String key, Duration deadline) {
        String topic = "object-states-" + pipelineRun.id();
        await(deadline, () -> CompactedTopic.latest(Map.of("bootstrap.servers", kafka.bootstrapServers()),
                        topic, DEADLINE).map(latest -> latest.containsKey(key) && latest.get(key) == null).orElse(false),
                () -> "no tombstone for " + key);
    }

    private static byte[] machineKey(String cluster, String machine) {
        return new ObjectStateKey(cluster, ObjectKind.MACHINE, new ObjectKey(CAPI, cluster + "-" + machine)).encode()
                .getBytes(StandardCharsets.UTF_8);
    }

    private Poison send(KafkaProducer<byte[], byte[]> producer, int partition, DeadLetterReason reason, String errorMentions, byte[] key,
            byte[] value) throws Exception {
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>("object-states-" + pipelineRun.id(), partition, key, value);
        record.headers().add("trace-id", ("poison-" + reason.code()).getBytes(StandardCharsets.UTF_8));
        RecordMetadata sent = producer.send(record).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        return new Poison(reason, errorMentions, key, value, sent);
    }

    private static KafkaProducer<byte[], byte[]> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()));
    }

    /** Every record of the dead-letter topic, up to its end now. */
    private List<ConsumerRecord<byte[], byte[]>> readDeadLetters() {
        return DeadLetterRecords.readAll(kafka.bootstrapServers(), "dead-letters-" + pipelineRun.id(), DEADLINE);
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        return DeadLetterRecords.header(record, name);
    }

    private static double deadLettersCounted(SimpleMeterRegistry registry, DeadLetterReason reason) {
        FunctionCounter counter = registry.find("aggregator_dead_letters").tag("reason", reason.code()).functionCounter();
        return counter == null ? -1 : counter.count();
    }
}
