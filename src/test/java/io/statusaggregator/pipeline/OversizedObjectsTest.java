package io.statusaggregator.pipeline;

import static io.statusaggregator.pipeline.Fleet.DEADLINE;
import static io.statusaggregator.pipeline.Fleet.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.Pipeline;
import io.statusaggregator.aggregation.DeadLetters;
import io.statusaggregator.aggregation.DeadLetterReason;
import io.statusaggregator.embedded.KafkaBroker;
import io.statusaggregator.ingest.ObjectIngest;
import io.statusaggregator.topics.ObjectStateKey;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.OversizedObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Objects too large for Kafka, on the whole pipeline (real broker, CRUD API server): a huge annotation the rules do not
 * read is not sent, so its cluster is computed as usual; an object still too large shows why on its own cluster, is
 * dead-lettered once, and flows again when it fits, while the other clusters are computed on; a record the broker
 * keeps refusing makes ingest stuck (readiness) with its reason, warned about once, not every second.
 */
class OversizedObjectsTest {
    @RegisterExtension
    static final KafkaBroker kafka = new KafkaBroker();

    @RegisterExtension
    final PipelineRun pipelineRun = new PipelineRun(() -> kafka.bootstrapServers());
    @RegisterExtension
    final LogCapture logged = new LogCapture(Level.INFO);

    private static final String TOO_LARGE = "EKS-A Cluster default/alpha cannot be read: too large for Kafka: "
            + "1.2 MiB with only the "
            + "fields the rules read, over the 1 MiB a record may hold (kafka.max.request.size)";

    @Test
    void aHugeAnnotationTheRulesDoNotReadIsNotSentAndTheClusterIsComputedAsUsual() throws Exception {
        Pipeline pipeline = pipelineRun.start();
        Fleet fleet = pipelineRun.fleet();
        fleet.createReady("alpha");

        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "alpha",
                "{\"metadata\": {\"annotations\": {\"anywhere.eks.amazonaws.com/notes\": \""
                + "n".repeat(1_536 * 1024) + "\"}}}");
        // A later change of its spec, invalid: it must show, as any change does.
        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "alpha", "{\"spec\": {\"kubernetesVersion\": \"1.x\"}}");
        fleet.awaitCondition("alpha", "Ready", "False", "MalformedObject",
                "EKS-A Cluster default/alpha cannot be read: "
                + "spec.kubernetesVersion: not a Kubernetes version of the form MAJOR.MINOR (like \"1.27\"): \"1.x\"");
        assertEquals(2, fleet.observedGeneration("default", "alpha"));

        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "alpha", "{\"spec\": {\"kubernetesVersion\": \"1.31\"}}");
        fleet.awaitReady("alpha");
        await(DEADLINE, pipeline.aggregator()::settled, () -> "not settled: " + pipeline.aggregator().progress());
        assertEquals(0, pipeline.aggregator().deadLetters().sent(DeadLetterReason.TOO_LARGE), "nothing was too large");
        assertTrue(logged.lines().stream()
                        .noneMatch(line -> line.contains("too large") || line.contains("could not send")),
                "nothing to warn of: " + logged.lines());
        assertEquals(Optional.empty(), pipeline.ingestStuck());
    }

    @Test
    void anObjectStillTooLargeShowsWhyOnItsClusterIsDeadLetteredOnceAndIsComputedAgainWhenItFits() throws Exception {
        Pipeline pipeline = pipelineRun.start();
        Fleet fleet = pipelineRun.fleet();
        fleet.createReady("alpha");
        fleet.createReady("bravo");

        // A field the rules do not read; the EKS-A Cluster's spec is sent whole (its hash is the version history's).
        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "alpha", hugeCaBundle(1_200_000));
        fleet.awaitCondition("alpha", "Ready", "False", "MalformedObject", TOO_LARGE);
        Map<String, Object> status = fleet.status("default", "alpha");
        assertEquals("MalformedObject", status.get("failureReason"));
        assertEquals(TOO_LARGE, status.get("failureMessage"));
        assertEquals(2, fleet.observedGeneration("default", "alpha"), "the generation too large");
        assertEquals("True", fleet.condition("default", "alpha", "ControlPlaneInitialized").get("status"),
                "the latch holds");

        // The other clusters are computed on, and alpha's later changes flow: a new generation, still too large.
        fleet.workers("bravo", 1, 1, 1, 0);
        fleet.awaitCondition("bravo", "Ready", "False", "ScalingUp",
                "Workers expected not ready yet, 1 replicas (actual 0)");
        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "alpha", hugeCaBundle(1_210_000));
        await(DEADLINE, () -> fleet.observedGeneration("default", "alpha") == 3,
                () -> "alpha's status: " + fleet.status("default", "alpha"));
        assertEquals(TOO_LARGE, fleet.condition("default", "alpha", "Ready").get("message"));

        // Dead-lettered once, as what it is: the head of the object, its size and the limit.
        DeadLetters deadLetters = pipeline.aggregator().deadLetters();
        await(DEADLINE, () -> pipeline.aggregator().settled() && deadLetters.inFlight() == 0,
                () -> "not settled: " + pipeline.aggregator().progress() + ", in flight " + deadLetters.inFlight());
        List<ConsumerRecord<byte[], byte[]>> letters = readDeadLetters();
        assertEquals(1, letters.size(), "one dead letter, not one per state too large");
        ConsumerRecord<byte[], byte[]> letter = letters.get(0);
        assertEquals(new ObjectStateKey("alpha", ObjectKind.EKSA_CLUSTER, new ObjectKey("default", "alpha")).encode(),
                new String(letter.key(), StandardCharsets.UTF_8));
        assertEquals("too-large", header(letter, DeadLetters.REASON));
        assertEquals(TOO_LARGE, header(letter, DeadLetters.ERROR));
        assertEquals(Integer.toString(1 << 20), header(letter, DeadLetters.LIMIT));
        long size = Long.parseLong(header(letter, DeadLetters.SIZE));
        assertTrue(size > 1_200_000 && size < 1_202_000, "the record's size: " + size);
        String head = new String(letter.value(), StandardCharsets.UTF_8);
        assertEquals(OversizedObject.HEAD, head.length());
        assertTrue(head.startsWith("{\"apiVersion\":\"anywhere.eks.amazonaws.com/v1alpha1\",\"kind\":\"Cluster\""),
                head.substring(0, 100));
        assertEquals(1, deadLetters.sent(DeadLetterReason.TOO_LARGE));
        assertEquals(1, logged.lines().stream().filter(line -> line.contains("default/alpha is too large to send"))
                        .count(),
                "ingest warns once while it stays too large: " + logged.lines());

        // It fits again: computed as before, the failure it raised cleared.
        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "alpha", "{\"spec\": {\"registryMirrorConfiguration\": null}}");
        fleet.awaitReady("alpha");
        assertEquals(null, fleet.status("default", "alpha").get("failureReason"));
        assertEquals(4, fleet.observedGeneration("default", "alpha"));
        assertEquals(Optional.empty(), pipeline.ingestStuck());
    }

    /**
     * The object-state topic made with a smaller {@code max.message.bytes} than the producer's limit: the broker
     * refuses a record the producer sends. Ingest retries every second, warns once, and is stuck (readiness) after the
     * bound until the object is sent.
     */
    @Test
    void aRecordTheBrokerKeepsRefusingMakesIngestStuckWithItsReasonWarnedOnceUntilItIsSent() throws Exception {
        String topic = "object-states-" + pipelineRun.id();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1).configs(Map.of("cleanup.policy", "compact",
                    "max.message.bytes", "65536")))).all().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
        Pipeline.Settings usual = pipelineRun.settings();
        ObjectIngest.Settings ingest = usual.ingestSettings();
        ObjectIngest.Settings stuckAfterTwoSeconds = new ObjectIngest.Settings(ingest.capiNamespace(),
                ingest.clusterNamespaces(), ingest.relistStalledAfter(), ingest.reconcileEvery(),
                Duration.ofSeconds(2));
        Pipeline pipeline = pipelineRun.start(new Pipeline.Settings(usual.kafka(), usual.objectStatesTopic(),
                usual.statusesTopic(), usual.transitionsTopic(), usual.deadLettersTopic(), usual.createTopics(),
                usual.partitions(), usual.replicationFactor(), usual.groupId(), usual.ingest(), stuckAfterTwoSeconds,
                usual.aggregatorSettings(), usual.writerSettings(), usual.cniSettings(), usual.compatibilityConfigMap(),
                usual.leadership()));
        Fleet fleet = pipelineRun.fleet();
        fleet.createReady("alpha");
        assertEquals(Optional.empty(), pipeline.ingestStuck());

        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "alpha", hugeCaBundle(100_000));
        String alpha = "the state of Cluster.anywhere.eks.amazonaws.com default/alpha";
        await(DEADLINE, () -> pipeline.ingestStuck()
                        .filter(reason -> reason.matches(".*\\((\\d{2,}|[5-9]) attempts\\).*")).isPresent(),
                () -> "not stuck after five attempts: " + pipeline.ingestStuck());
        String reason = pipeline.ingestStuck().orElseThrow();
        assertTrue(reason.startsWith(alpha + " not sent for "), reason);
        assertTrue(reason.contains("RecordTooLargeException"), reason);
        assertEquals(1, logged.lines().stream().filter(line -> line.contains("could not send " + alpha)).count(),
                "one warning for five and more failed sends: " + logged.lines());

        fleet.patch(ObjectKind.EKSA_CLUSTER, "default", "alpha", "{\"spec\": {\"registryMirrorConfiguration\": null}}");
        await(DEADLINE, () -> pipeline.ingestStuck().isEmpty(), () -> "still stuck: " + pipeline.ingestStuck());
        await(DEADLINE, () -> fleet.observedGeneration("default", "alpha") == 3,
                () -> "alpha's status: " + fleet.status("default", "alpha"));
        fleet.awaitReady("alpha");
        assertTrue(logged.lines().stream().anyMatch(line -> line.contains("sent " + alpha + " after ")),
                "said sent: " + logged.lines());
    }

    /** A merge patch that puts {@code chars} characters in a spec field the rules do not read. */
    private static String hugeCaBundle(int chars) {
        return "{\"spec\": {\"registryMirrorConfiguration\": {\"caCertContent\": \"" + "c".repeat(chars) + "\"}}}";
    }

    /** Every record of the dead-letter topic, up to its end now. */
    private List<ConsumerRecord<byte[], byte[]>> readDeadLetters() {
        return DeadLetterRecords.readAll(kafka.bootstrapServers(), "dead-letters-" + pipelineRun.id(), DEADLINE);
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        return DeadLetterRecords.header(record, name);
    }
}
