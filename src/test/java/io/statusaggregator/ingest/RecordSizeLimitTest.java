package io.statusaggregator.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.ClusterMemberReader;
import io.statusaggregator.model.json.EksaClusterReader;
import io.statusaggregator.model.json.MalformedObjectException;
import io.statusaggregator.model.json.ObjectDecoder;
import io.statusaggregator.model.json.OversizedObject;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import io.statusaggregator.topics.ObjectReduction;
import io.statusaggregator.topics.ObjectStateKey;

/**
 * An object whose record would be over the producer's limit even reduced is sent as a small stand-in that every
 * reader of the topic refuses as an object that cannot be read, saying it is too large, by how much and over what.
 */
class RecordSizeLimitTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectStateKey KEY = new ObjectStateKey("alpha", ObjectKind.EKSA_CLUSTER,
            new ObjectKey("default", "alpha"));

    private static ObjectNode cluster(int caBundleChars) {
        ObjectNode cluster = JSON.createObjectNode()
                .put("apiVersion", "anywhere.eks.amazonaws.com/v1alpha1").put("kind", "Cluster");
        cluster.putObject("metadata").put("namespace", "default").put("name", "alpha")
                .put("generation", 4).put("resourceVersion", "812");
        ObjectNode spec = cluster.putObject("spec").put("kubernetesVersion", "1.31");
        spec.putObject("controlPlaneConfiguration").put("count", 1);
        spec.putObject("registryMirrorConfiguration").put("caCertContent", "c".repeat(caBundleChars));
        cluster.putObject("status").put("observedGeneration", 3).putArray("conditions").addObject().put("type", "Ready")
                .put("status", "True").put("lastTransitionTime", "2026-11-22T01:37:21Z");
        return cluster;
    }

    @Test
    void anObjectUnderTheLimitIsSentAsItIs() {
        ObjectNode reduced = ObjectReduction.reduce(ObjectKind.EKSA_CLUSTER, cluster(500_000));
        assertEquals(Optional.empty(), new RecordSizeLimit(RecordSizeLimit.KAFKA_DEFAULT).check(ObjectKind.EKSA_CLUSTER,
                KEY.encode(), reduced, reduced.toString()));
    }

    @Test
    void anObjectOverTheLimitIsSentAsAStandInThatFitsAndReadsAsAnObjectTooLarge() throws Exception {
        ObjectNode reduced = ObjectReduction.reduce(ObjectKind.EKSA_CLUSTER, cluster(1_500_000));
        String value = reduced.toString();
        RecordSizeLimit limit = new RecordSizeLimit(RecordSizeLimit.KAFKA_DEFAULT);
        RecordSizeLimit.Oversized oversized = limit.check(ObjectKind.EKSA_CLUSTER, KEY.encode(), reduced, value)
                .orElseThrow();
        assertEquals(RecordSizeLimit.size(KEY.encode(), value), oversized.object().bytes());
        long size = oversized.object().bytes();
        assertTrue(size > 1_500_000 && size < 1_501_000, "the record's size: " + size);
        assertTrue(RecordSizeLimit.size(KEY.encode(), oversized.standIn()) < 20_000,
                "the stand-in is small: " + oversized.standIn().length());
        assertEquals(value.substring(0, OversizedObject.HEAD), oversized.object().head(),
                "the head of the object, for its dead letter");

        ObjectNode standIn = (ObjectNode) JSON.readTree(oversized.standIn());
        MalformedObjectException refused = assertThrows(MalformedObjectException.class,
                () -> ObjectDecoder.decode(standIn));
        assertEquals("too large for Kafka: 1.5 MiB with only the fields the rules read, over the 1 MiB a record may "
                + "hold "
                + "(kafka.max.request.size)", refused.getMessage());
        // What aggregation keeps of an EKS-A Cluster it cannot read: identity, generation and the status it shows.
        EksaCluster kept = ObjectDecoder.unreadableCluster(standIn, KEY.key());
        assertEquals(4, kept.generation());
        assertEquals(3, kept.status().observedGeneration());
        assertEquals("812", kept.resourceVersion());
        // The fast readers leave it to the decoder, which says what it is.
        byte[] bytes = oversized.standIn().getBytes(StandardCharsets.UTF_8);
        assertEquals(Optional.empty(), new EksaClusterReader().read(bytes, Optional.empty()));
        ObjectNode machine = JSON.createObjectNode()
                .put("apiVersion", "cluster.x-k8s.io/v1beta1").put("kind", "Machine");
        machine.putObject("metadata").put("namespace", "eksa-system").put("name", "alpha-m1");
        machine.putObject("spec").put("clusterName", "alpha").put("version", "v1.31.0");
        machine.putObject(OversizedObject.FIELD).put("bytes", 2_000_000).put("limit", 1 << 20);
        assertTrue(new ClusterMemberReader().read(machine.toString().getBytes(StandardCharsets.UTF_8)).isEmpty());
        assertTrue(assertThrows(MalformedObjectException.class, () -> ObjectDecoder.decode(machine)).getMessage()
                .startsWith("too large for Kafka: 2 MiB with"), "rounded up");
    }

    @Test
    void aStatusTooLargeForTheStandInIsLeftOut() throws Exception {
        ObjectNode cluster = cluster(10);
        ((ObjectNode) cluster.get("status")).put("failureMessage", "f".repeat(2_000_000));
        ObjectNode reduced = ObjectReduction.reduce(ObjectKind.EKSA_CLUSTER, cluster);
        String standIn = new RecordSizeLimit(RecordSizeLimit.KAFKA_DEFAULT)
                .check(ObjectKind.EKSA_CLUSTER, KEY.encode(), reduced, reduced.toString()).orElseThrow().standIn();
        assertTrue(standIn.length() < 20_000, standIn.length() + " characters");
        assertFalse(JSON.readTree(standIn).has("status"), "the status written over, from nothing");
    }

    @Test
    void theLimitIsTheProducersMaxRequestSize() {
        assertEquals(1 << 20, RecordSizeLimit.of(Map.of()).limit());
        assertEquals(65_536, RecordSizeLimit.of(Map.of("max.request.size", "65536")).limit());
        assertEquals(2_097_152, RecordSizeLimit.of(Map.of("max.request.size", 2_097_152)).limit());
    }

    @Test
    void theHeadNeverSplitsACharacter() {
        String text = "a".repeat(OversizedObject.HEAD - 1) + "\uD83D\uDE00" + "b".repeat(10);
        assertEquals(OversizedObject.HEAD - 1, RecordSizeLimit.head(text).length());
        assertEquals("short", RecordSizeLimit.head("short"));
    }
}
