package io.statusaggregator.model.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.ObjectKind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The EKS-A Cluster reader is a fast path, never a second opinion: whenever it answers, {@link ObjectDecoder} gives the
 * same Cluster, whether it read the spec anew or took the one it was told the Cluster had; and it does answer for the
 * well-formed Clusters it is there for, with the statuses this aggregator writes.
 */
class EksaClusterReaderTest {
    /** The field names the reader looks for: the mutations add fields of these names. */
    private static final List<String> KNOWN = List.of("apiVersion", "kind", "metadata", "name", "namespace", "generation",
            "resourceVersion", "annotations", "spec", "status", "observedGeneration", "failureReason", "failureMessage", "defaultCNI", "version",
            "conditions", "type", "reason", "message", "severity", "lastTransitionTime", "workerNodeGroups", "kubernetesVersion",
            "replicas", "readyReplicas", "upToDateReplicas", "versions", "next", "current", "last", "currentKubernetes",
            "controlPlaneConfiguration", "count", "workerNodeGroupConfigurations", "clusterNetwork", "cniConfig", "cilium");
    /** The field names the spec's reader looks for. */
    private static final List<String> SPEC_FIELDS = List.of("controlPlaneConfiguration", "count", "workerNodeGroupConfigurations",
            "name", "autoscalingConfiguration", "minCount", "maxCount", "kubernetesVersion", "eksaVersion", "bundlesRef",
            "externalEtcdConfiguration", "clusterNetwork", "cniConfig", "cilium", "kindnetd", "skipUpgrade", "cni",
            "managementCluster");

    private final EksaClusterReader reader = new EksaClusterReader();

    private static boolean isCluster(KubernetesObject object) {
        return object.kind() == ObjectKind.EKSA_CLUSTER;
    }

    /**
     * The fixtures' EKS-A Clusters, each as it is and with each status the scenarios expect (the statuses this
     * aggregator writes, which come back on the Clusters).
     */
    private static List<ObjectNode> clusters() throws IOException {
        List<ObjectNode> clusters = JsonMutations.fixtureObjects().stream()
                .filter(o -> JsonMutations.tree(JsonMutations.bytes(o)).map(EksaClusterReaderTest::isCluster).orElse(false)).toList();
        List<ObjectNode> statuses = JsonMutations.fixtureNodes(node -> node.has("expect") && node.get("expect").isObject())
                .stream().map(scenario -> (ObjectNode) scenario.get("expect")).toList();
        List<ObjectNode> all = new ArrayList<>(clusters);
        for (int i = 0; i < statuses.size(); i++) {
            ObjectNode cluster = clusters.get(i % clusters.size()).deepCopy();
            cluster.set("status", statuses.get(i));
            cluster.with("metadata").put("resourceVersion", String.valueOf(1000 + i)); // as every state from an API server has
            all.add(cluster);
        }
        return all;
    }

    private Optional<EksaCluster> read(byte[] value, Optional<EksaClusterReader.KnownSpec> known) {
        return reader.read(value, known).map(EksaClusterReader.Read::cluster);
    }

    private void assertSameAsTree(byte[] value, Optional<EksaClusterReader.KnownSpec> known, String what) {
        Optional<EksaCluster> fast = read(value, known);
        if (fast.isPresent()) {
            assertEquals(JsonMutations.tree(value), fast.map(KubernetesObject.class::cast), what + ": " + new String(value, StandardCharsets.UTF_8));
        }
    }

    @Test
    void readsEveryWellFormedClusterOfTheFixturesAsTheTreeDoes() throws IOException {
        int answered = 0;
        int withConditions = 0;
        for (ObjectNode object : clusters()) {
            byte[] value = JsonMutations.bytes(object);
            Optional<KubernetesObject> tree = JsonMutations.tree(value);
            Optional<EksaCluster> fast = read(value, Optional.empty());
            if (tree.isPresent()) {
                assertEquals(tree, fast.map(KubernetesObject.class::cast), "a well-formed Cluster must be read by the fast path: " + object);
                answered++;
                withConditions += fast.get().status().conditions().isEmpty() ? 0 : 1;
            } else {
                assertEquals(Optional.empty(), fast, "answered for a Cluster the tree refuses: " + object);
            }
        }
        assertTrue(answered >= 100, "the fixtures hold many Clusters and statuses, read " + answered);
        assertTrue(withConditions >= 50, "most show conditions, as the echo of a status written does: " + withConditions);
    }

    @Test
    void neverAnswersOtherwiseThanTheTreeOnMutatedClustersWithOrWithoutTheSpecReadBefore() throws IOException {
        List<ObjectNode> clusters = clusters().stream().filter(o -> JsonMutations.tree(JsonMutations.bytes(o)).isPresent()).toList();
        Random random = new Random(20261126);
        int answered = 0;
        for (int i = 0; i < 30_000; i++) {
            ObjectNode original = clusters.get(random.nextInt(clusters.size()));
            // The spec read from the Cluster's previous record: most mutations leave its bytes, some change them.
            Optional<EksaClusterReader.KnownSpec> known = random.nextBoolean()
                    ? reader.read(JsonMutations.bytes(original), Optional.empty()).map(EksaClusterReader.Read::spec) : Optional.empty();
            byte[] value = JsonMutations.mutated(original, random, KNOWN, "\"status\":{\"observedGeneration\":9}");
            assertSameAsTree(value, known, "mutation " + i);
            if (read(value, known).isPresent()) {
                answered++;
            }
        }
        assertTrue(answered > 5_000, "mutations that leave a readable Cluster are still read fast: " + answered);
    }

    @Test
    void readsMutatedSpecsAsTheTreeDoesWhetherReadAtOnceOrAfterAnotherSpec() throws IOException {
        List<ObjectNode> clusters = clusters().stream().filter(o -> JsonMutations.tree(JsonMutations.bytes(o)).isPresent()).toList();
        Random random = new Random(20261128);
        int answered = 0;
        int fractions = 0;
        for (int i = 0; i < 30_000; i++) {
            ObjectNode original = clusters.get(random.nextInt(clusters.size()));
            ObjectNode rest = original.deepCopy();
            byte[] spec = JsonMutations.mutated((ObjectNode) rest.remove("spec"), random, SPEC_FIELDS, "\"count\":1");
            String text = new String(JsonMutations.bytes(rest), StandardCharsets.UTF_8);
            byte[] value = ("{\"spec\":" + new String(spec, StandardCharsets.UTF_8) + "," + text.substring(1)).getBytes(StandardCharsets.UTF_8);
            Optional<EksaClusterReader.KnownSpec> known = random.nextBoolean()
                    ? reader.read(JsonMutations.bytes(original), Optional.empty()).map(EksaClusterReader.Read::spec) : Optional.empty();
            assertSameAsTree(value, known, "mutation " + i);
            if (read(value, known).isPresent()) {
                answered++;
                fractions += new String(spec, StandardCharsets.UTF_8).contains("1.5") ? 1 : 0;
            }
        }
        // About a third of the mutations leave a valid spec (fewer since the control plane's version is required).
        assertTrue(answered > 9_000, "mutated specs that stay valid are still read fast: " + answered);
        assertTrue(fractions > 100, "some hashed through the tree (a fraction in them): " + fractions);
    }

    @Test
    void readsEachWayOfWritingASpecAsTheTreeDoes() {
        String cluster = """
                {"apiVersion":"anywhere.eks.amazonaws.com/v1alpha1","kind":"Cluster","metadata":{"name":"a"},
                 "spec":{"controlPlaneConfiguration":{"count":1},%s}}""";
        // Each spec's fields, and whether the tree reads it (true) or names an error (false).
        Object[][] specs = {
                {"\"clusterNetwork\":{\"cniConfig\":{\"kindnetd\":null,\"cilium\":{\"skipUpgrade\":true}}}", true},
                {"\"clusterNetwork\":{\"cniConfig\":{\"kindnetd\":7}}", true},
                {"\"clusterNetwork\":{\"cniConfig\":{\"kindnetd\":{},\"cilium\":{}}}", false},
                {"\"clusterNetwork\":{\"cniConfig\":{\"cilium\":null},\"cni\":\"kindnetd\"}", true},
                {"\"clusterNetwork\":{\"cniConfig\":{\"cilium\":{}},\"cni\":7}", true},
                {"\"clusterNetwork\":{\"cni\":7}", false},
                {"\"clusterNetwork\":{\"cni\":\"cilium-1.2\"}", true},
                {"\"clusterNetwork\":{\"cni\":\"flannel\"}", false},
                {"\"clusterNetwork\":{\"cniConfig\":{\"cilium\":{\"skipUpgrade\":\"yes\"}}}", false},
                {"\"workerNodeGroupConfigurations\":[{\"name\":\"md-0\"}]", true},
                {"\"workerNodeGroupConfigurations\":[{\"name\":\"md-0\",\"count\":null,\"kubernetesVersion\":null}]", true},
                {"\"workerNodeGroupConfigurations\":[{\"name\":\"\",\"count\":1}]", false},
                {"\"workerNodeGroupConfigurations\":[{\"name\":\"md-0\",\"autoscalingConfiguration\":{\"maxCount\":3}}]", true},
                {"\"workerNodeGroupConfigurations\":[{\"name\":\"md-0\",\"autoscalingConfiguration\":{\"minCount\":4,\"maxCount\":3}}]", false},
                {"\"workerNodeGroupConfigurations\":[{\"name\":\"md-0\",\"autoscalingConfiguration\":{\"minCount\":1,\"maxCount\":null}}]", false},
                {"\"workerNodeGroupConfigurations\":[{\"name\":\"md-0\",\"kubernetesVersion\":\"1.x\"}]", false},
                {"\"workerNodeGroupConfigurations\":[null]", false},
                {"\"externalEtcdConfiguration\":{\"count\":3}", true},
                {"\"externalEtcdConfiguration\":null", true},
                {"\"externalEtcdConfiguration\":{\"count\":-3}", false},
                {"\"externalEtcdConfiguration\":[]", false},
                {"\"managementCluster\":{\"name\":\"\"},\"bundlesRef\":{\"name\":\"b-1\",\"namespace\":\"x\"}", true},
                {"\"managementCluster\":{\"name\":\"mgmt\"},\"eksaVersion\":\"v0.19.0\",\"kubernetesVersion\":\"1.28\"", true},
                {"\"kubernetesVersion\":1.28", false},
                {"\"kubernetesVersion\":null,\"eksaVersion\":\"v0.19.0\"", false}, // required
                {"\"kubernetesVersion\":\"1.28\"", true},
                {"\"ratio\":0.5,\"eksaVersion\":null", true}, // a fraction elsewhere: hashed through the tree
        };
        for (Object[] spec : specs) {
            // The control plane's version, required, unless the case writes its own.
            String fields = (String) spec[0];
            boolean ownVersion = fields.startsWith("\"kubernetesVersion\"") || fields.contains("\"v0.19.0\",\"kubernetesVersion\"");
            byte[] value = bytes(cluster.formatted(ownVersion ? fields : "\"kubernetesVersion\":\"1.31\"," + fields));
            assertEquals(spec[1], JsonMutations.tree(value).isPresent(), "the tree's judgement of " + spec[0]);
            assertEquals(spec[1], read(value, Optional.empty()).isPresent(), "read at once: " + spec[0]);
            assertSameAsTree(value, Optional.empty(), "read at once");
            Optional<EksaClusterReader.KnownSpec> before = reader.read(bytes(cluster.formatted("\"kubernetesVersion\":\"1.30\",\"eksaVersion\":\"v0\"")), Optional.empty())
                    .map(EksaClusterReader.Read::spec);
            assertEquals(spec[1], read(value, before).isPresent(), "read after another spec: " + spec[0]);
            assertSameAsTree(value, before, "read after another spec");
        }
    }

    @Test
    void anEchoWithTheSameSpecTakesTheSpecReadBeforeAndAChangedSpecIsReadAnew() {
        String cluster = """
                {"apiVersion":"anywhere.eks.amazonaws.com/v1alpha1","kind":"Cluster",
                 "metadata":{"namespace":"default","name":"a","generation":2},
                 "spec":{"kubernetesVersion":"1.27","controlPlaneConfiguration":{"count":3},
                         "workerNodeGroupConfigurations":[{"name":"md-0","count":2}]},
                 "status":%s}""";
        String shown = """
                {"observedGeneration":2,"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2023-06-05T20:12:00Z"}]}""";
        EksaClusterReader.Read first = reader.read(bytes(cluster.formatted("{}")), Optional.empty()).orElseThrow();
        EksaClusterReader.Read echo = reader.read(bytes(cluster.formatted(shown)), Optional.of(first.spec())).orElseThrow();
        assertSame(first.spec(), echo.spec(), "the echo's spec bytes are the ones read before: not read again");
        assertEquals(ConditionType.READY, echo.cluster().status().conditions().get(0).type());
        assertEquals(JsonMutations.tree(bytes(cluster.formatted(shown))), Optional.of(echo.cluster()));

        String scaled = cluster.formatted(shown).replace("\"count\":3", "\"count\":5");
        EksaClusterReader.Read edited = reader.read(bytes(scaled), Optional.of(first.spec())).orElseThrow();
        assertEquals(5, edited.cluster().spec().controlPlaneCount(), "a spec whose bytes changed is read anew");
        assertNotEquals(first.cluster().specHash(), edited.cluster().specHash());
        assertEquals(JsonMutations.tree(bytes(scaled)), Optional.of(edited.cluster()));
        // The same spec with its fields in another order: other bytes, read anew, and the same hash (keys sorted).
        String reordered = cluster.formatted(shown).replace("\"kubernetesVersion\":\"1.27\",\"controlPlaneConfiguration\":{\"count\":3}",
                "\"controlPlaneConfiguration\":{\"count\":3},\"kubernetesVersion\":\"1.27\"");
        EksaClusterReader.Read other = reader.read(bytes(reordered), Optional.of(first.spec())).orElseThrow();
        assertNotEquals(first.spec(), other.spec());
        assertEquals(first.cluster().specHash(), other.cluster().specHash());
    }

    /** What the tree reading makes of a status document: its status, or empty when it is not JSON or malformed. */
    private static Optional<ClusterStatus> statusByTree(byte[] document) {
        try {
            JsonNode json = JsonMutations.JSON.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(document);
            return json == null || json.isMissingNode() ? Optional.empty() : Optional.of(ObjectDecoder.statusOf(json));
        } catch (IOException | MalformedObjectException e) {
            return Optional.empty();
        }
    }

    @Test
    void readsTheStatusTopicsDocumentsAsTheTreeDoes() throws IOException {
        List<byte[]> documents = new ArrayList<>();
        for (ObjectNode object : clusters()) {
            Optional<KubernetesObject> cluster = JsonMutations.tree(JsonMutations.bytes(object));
            if (cluster.isPresent() && cluster.get() instanceof EksaCluster eksa) {
                documents.add(bytes(StatusDocument.text(eksa, StatusJson.text(eksa.status()))));
            }
        }
        assertTrue(documents.size() >= 100, "a document per readable Cluster: " + documents.size());
        for (byte[] document : documents) {
            assertEquals(statusByTree(document), EksaClusterReader.statusOf(document), new String(document, StandardCharsets.UTF_8));
        }
        Random random = new Random(20261127);
        int answered = 0;
        for (int i = 0; i < 10_000; i++) {
            ObjectNode document = (ObjectNode) JsonMutations.JSON.readTree(documents.get(random.nextInt(documents.size())));
            byte[] value = JsonMutations.mutated(document, random, KNOWN, "\"status\":{\"observedGeneration\":9}");
            Optional<ClusterStatus> fast = EksaClusterReader.statusOf(value);
            if (fast.isPresent()) {
                assertEquals(statusByTree(value), fast, "mutation " + i + ": " + new String(value, StandardCharsets.UTF_8));
                answered++;
            }
        }
        assertTrue(answered > 2_000, "mutated documents still read fast: " + answered);
    }

    /** EKS-A refuses a Cluster without the control plane's version; read as none, it was Ready and a downgrade passed. */
    @Test
    void aClusterWithoutItsKubernetesVersionIsUnreadableAndSaysWhy() throws Exception {
        String cluster = """
                {"apiVersion":"anywhere.eks.amazonaws.com/v1alpha1","kind":"Cluster","metadata":{"name":"a"},
                 "spec":{"controlPlaneConfiguration":{"count":1}}}""";
        assertTrue(read(bytes(cluster), Optional.empty()).isEmpty(), "left to the tree, which names what is missing");
        String problem = assertThrows(MalformedObjectException.class, () -> ObjectDecoder.decode(JsonMutations.JSON.readTree(cluster)))
                .getMessage();
        assertEquals("spec.kubernetesVersion: required: the control plane's Kubernetes version (like \"1.31\")", problem);
    }

    @Test
    void givesUpOnWhatOnlyTheTreeCanJudge() {
        String cluster = """
                {"apiVersion":"anywhere.eks.amazonaws.com/v1alpha1","kind":"Cluster","metadata":{"name":"a"},
                 "spec":{"controlPlaneConfiguration":{"count":1},"kubernetesVersion":"1.31"},
                 "status":{"conditions":[{"type":"Ready","status":"False","lastTransitionTime":"2023-06-05T20:12:00Z"}]}}""";
        assertTrue(read(bytes(cluster), Optional.empty()).isPresent());
        for (String bad : List.of(
                cluster + " {}",                                                         // trailing content
                cluster.replace("\"status\"", "\"status\":{},\"status\""),               // a repeated field
                cluster.replace("2023-06-05T20:12:00Z", "yesterday"),                    // not a time
                cluster.replace("{\"count\":1}", "{\"count\":-1}"),                      // a negative count in the spec
                cluster.replace("\"spec\":{\"controlPlaneConfiguration\":{\"count\":1},\"kubernetesVersion\":\"1.31\"}", "\"spec\":null"), // no spec
                cluster.replace("\"a\"", "7"),                                           // a name that is a number
                cluster.replace("\"kind\":\"Cluster\"", "\"kind\":\"Machine\""))) {      // another kind
            assertEquals(Optional.empty(), read(bytes(bad), Optional.empty()), bad);
            assertSameAsTree(bytes(bad), Optional.empty(), bad);
        }
        byte[] notUtf8 = cluster.replace("\"False\"", "\"Fals\u00e9\"").getBytes(StandardCharsets.UTF_8);
        notUtf8[cluster.indexOf("\"False\"") + 5] = (byte) 0xff;
        assertEquals(Optional.empty(), read(notUtf8, Optional.empty()), "invalid UTF-8 in the status");
    }

    private static byte[] bytes(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }
}
