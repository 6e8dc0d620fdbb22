package io.statusaggregator.model.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.model.ClusterMember;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.Machine;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The streaming reader is a fast path, never a second opinion: whenever it answers, {@link ObjectDecoder} (the tree
 * reading the aggregator used before it, and still uses for everything it gives up on) gives the same object; and it
 * does answer for the well-formed members it is there for.
 */
class ClusterMemberReaderTest {
    private static final List<ObjectKind> FAST = java.util.Arrays.stream(ObjectKind.values()).filter(ClusterMemberReader::reads).toList();

    /** The field names the reader looks for: the mutations add fields of these names. */
    private static final List<String> KNOWN = List.of("apiVersion", "kind", "metadata", "name", "namespace", "generation", "labels",
            "spec", "status", "clusterName", "version", "observedGeneration", "replicas", "readyReplicas", "updatedReplicas",
            "upToDateReplicas", "availableReplicas", "deprecated", "v1beta1", "initialized", "initialization", "controlPlaneInitialized", "conditions", "type", "reason",
            "message", "cluster.x-k8s.io/cluster-name", "cluster.x-k8s.io/deployment-name");

    private final ClusterMemberReader reader = new ClusterMemberReader();

    /** The fixtures' objects of the kinds this reader reads, as the tree reads them, each also at v1beta2. */
    private static List<ObjectNode> memberFixtures() throws IOException {
        return fixtures().stream()
                .filter(o -> JsonMutations.tree(JsonMutations.bytes(o)).map(k -> FAST.contains(k.kind())).orElse(false)).toList();
    }

    /** Every fixture object, and each CAPI v1beta1 one also as CAPI's conversion makes it at v1beta2. */
    private static List<ObjectNode> fixtures() throws IOException {
        List<ObjectNode> all = new java.util.ArrayList<>(JsonMutations.fixtureObjects());
        for (ObjectNode object : List.copyOf(all)) {
            if (object.path("apiVersion").asText().endsWith("cluster.x-k8s.io/v1beta1")) {
                all.add(atV1beta2(object));
            }
        }
        return all;
    }

    /** The counters and initialization under their v1beta2 names; the v1beta1 ones kept in the deprecated block. */
    private static ObjectNode atV1beta2(ObjectNode v1beta1) {
        ObjectNode object = v1beta1.deepCopy();
        object.put("apiVersion", object.path("apiVersion").asText().replace("/v1beta1", "/v1beta2"));
        if (object.get("status") instanceof ObjectNode status) {
            ObjectNode deprecated = status.deepCopy();
            if (status.has("updatedReplicas")) {
                status.set("upToDateReplicas", status.remove("updatedReplicas"));
            }
            if (status.has("initialized")) {
                status.putObject("initialization").set("controlPlaneInitialized", status.remove("initialized"));
            }
            status.putObject("deprecated").set("v1beta1", deprecated);
        }
        return object;
    }

    private void assertSameAsTree(byte[] value, String what) {
        Optional<KubernetesObject> fast = reader.read(value);
        if (fast.isPresent()) {
            assertEquals(JsonMutations.tree(value), fast, what + ": " + new String(value, StandardCharsets.UTF_8));
        }
    }

    @Test
    void readsEveryWellFormedMemberOfTheFixturesAsTheTreeDoes() throws IOException {
        int answered = 0;
        for (ObjectNode object : fixtures()) {
            byte[] value = JsonMutations.bytes(object);
            Optional<KubernetesObject> tree = JsonMutations.tree(value);
            Optional<KubernetesObject> fast = reader.read(value);
            if (tree.isPresent() && FAST.contains(tree.get().kind())) {
                assertEquals(tree, fast, "a well-formed member must be read by the fast path: " + object);
                answered++;
            } else {
                assertTrue(fast.isEmpty() || fast.equals(tree), "answered differently from the tree: " + object);
            }
        }
        assertTrue(answered >= 50, "the fixtures hold many Machines, MachineDeployments and KubeadmControlPlanes, read " + answered);
        assertEquals(List.of(ObjectKind.KUBEADM_CONTROL_PLANE, ObjectKind.MACHINE_DEPLOYMENT, ObjectKind.MACHINE).stream().sorted().toList(), FAST,
                "the kinds it reads are the ones it answers for");
    }

    @Test
    void neverAnswersOtherwiseThanTheTreeOnMutatedObjects() throws IOException {
        List<ObjectNode> fixtures = memberFixtures();
        Random random = new Random(20261125);
        int answered = 0;
        for (int i = 0; i < 30_000; i++) {
            byte[] value = JsonMutations.mutated(fixtures.get(random.nextInt(fixtures.size())), random, KNOWN,
                    "\"spec\":{\"clusterName\":\"zeta\"}");
            assertSameAsTree(value, "mutation " + i);
            if (reader.read(value).isPresent()) {
                answered++;
            }
        }
        assertTrue(answered > 1_000, "mutations that leave a readable member are still read fast: " + answered);
    }

    @Test
    void toldTheRecordsKeyReadsWhatTheValueSaysAndSharesOnlyWhatIsEqual() throws IOException {
        List<ObjectNode> fixtures = memberFixtures();
        Random random = new Random(20261127);
        int shared = 0;
        for (int i = 0; i < 30_000; i++) {
            ObjectNode original = fixtures.get(random.nextInt(fixtures.size()));
            KubernetesObject before = JsonMutations.tree(JsonMutations.bytes(original)).orElseThrow();
            // The key of the record the mutated value came in: the object's own before the mutation, or another's.
            KubernetesObject keyed = random.nextInt(4) == 0 ? JsonMutations.tree(JsonMutations.bytes(fixtures.get(random.nextInt(fixtures.size()))))
                    .orElseThrow() : before;
            String cluster = ((ClusterMember) keyed).clusterName();
            byte[] value = JsonMutations.mutated(original, random, KNOWN, "\"spec\":{\"clusterName\":\"zeta\"}");
            byte[] framed = new byte[value.length + 7];
            System.arraycopy(value, 0, framed, 3, value.length);
            Optional<KubernetesObject> fast = reader.read(framed, 3, value.length, keyed.key(), cluster);
            if (fast.isPresent()) {
                assertEquals(JsonMutations.tree(value), fast, "mutation " + i + ": " + new String(value, StandardCharsets.UTF_8));
                if (fast.get().key() == keyed.key()) {
                    shared++;
                }
            }
        }
        assertTrue(shared > 1_000, "objects that are what their key says hold the key's names: " + shared);
    }

    @Test
    void aValueNamingAnotherObjectThanItsKeyIsReadAsThatObject() {
        String machine = """
                {"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"Machine","metadata":{"namespace":"eksa-system","name":"a-m0",
                 "labels":{"cluster.x-k8s.io/cluster-name":"a","cluster.x-k8s.io/deployment-name":"a-md-0"}},
                 "spec":{"clusterName":"a","version":"v1.27.4"}}""";
        byte[] value = machine.getBytes(StandardCharsets.UTF_8);
        ObjectKey key = new ObjectKey("eksa-system", "a-m0");
        Machine read = (Machine) reader.read(value, 0, value.length, key, "a").orElseThrow();
        assertSame(key, read.key(), "the key's names, not a copy");
        assertSame(read.clusterName(), ((Machine) reader.read(value, 0, value.length, new ObjectKey("eksa-system", "a-m0"), "a")
                .orElseThrow()).clusterName(), "the cluster name of the record's key");

        for (ObjectKey other : List.of(new ObjectKey("eksa-system", "a-m1"), new ObjectKey("default", "a-m0"), new ObjectKey("eksa-system", "a-m"))) {
            Machine named = (Machine) reader.read(value, 0, value.length, other, "b").orElseThrow();
            assertEquals(key, named.key(), "named by its value, not by the key " + other);
            assertEquals("a", named.clusterName());
        }
    }

    @Test
    void valuesSharedBetweenObjectsStayTheirOwnWhenManyDiffer() {
        // More distinct deployment names and versions than the shared strings have slots: each still reads as written.
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 10_000; i++) {
                String deployment = "md-" + i + (round == 0 ? "" : "-x");
                String version = "v1." + (i % 40) + "." + i + "-eks-" + round;
                byte[] value = ("""
                        {"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"Machine","metadata":{"namespace":"eksa-system","name":"m%d",
                         "labels":{"cluster.x-k8s.io/deployment-name":"%s"}},"spec":{"clusterName":"c","version":"%s"}}"""
                        .formatted(i, deployment, version)).getBytes(StandardCharsets.UTF_8);
                Machine read = (Machine) reader.read(value, 0, value.length, null, null).orElseThrow();
                assertEquals(Optional.of(deployment), read.deploymentName());
                assertEquals(KubernetesVersion.parseMachine(version), read.version());
                assertEquals(JsonMutations.tree(value), Optional.of(read));
            }
        }
    }

    @Test
    void givesUpOnWhatOnlyTheTreeCanJudge() {
        String machine = """
                {"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"Machine","metadata":{"namespace":"eksa-system","name":"a-m0"},
                 "spec":{"clusterName":"a","version":"v1.27.4"}}""";
        assertTrue(reader.read(machine.getBytes(StandardCharsets.UTF_8)).isPresent());
        for (String bad : List.of(
                machine + " {}",                                                         // trailing content
                machine.replace("\"spec\"", "\"spec\":{},\"spec\""),                     // a repeated field
                machine.replace("v1.27.4", "one"),                                       // not a version
                machine.replace("\"a-m0\"", "7"),                                        // a name that is a number
                machine.replace("\"clusterName\":\"a\"", "\"clusterName\":\"\""),        // no cluster
                machine.replace("Machine", "Cluster"))) {                                // not a kind it reads fast
            assertEquals(Optional.empty(), reader.read(bad.getBytes(StandardCharsets.UTF_8)), bad);
            assertSameAsTree(bad.getBytes(StandardCharsets.UTF_8), bad);
        }
        byte[] notUtf8 = machine.replace("eksa-system", "eksa-\u00e9system").getBytes(StandardCharsets.UTF_8);
        notUtf8[machine.indexOf("eksa-system") + 5] = (byte) 0xff;
        assertSameAsTree(notUtf8, "invalid UTF-8");
    }
}
