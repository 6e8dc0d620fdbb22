package io.statusaggregator.model.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.statusaggregator.model.KubernetesObject;
import io.statusaggregator.model.ObjectKind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The streaming reader is a fast path, never a second opinion: whenever it answers, {@link ObjectDecoder} (the tree
 * reading the aggregator used before it, and still uses for everything it gives up on) gives the same object; and it
 * does answer for the well-formed members it is there for.
 */
class ClusterMemberReaderTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** As the aggregator reads a record's value with the tree. */
    private static final ObjectReader TREE = JSON.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final List<ObjectKind> FAST = java.util.Arrays.stream(ObjectKind.values()).filter(ClusterMemberReader::reads).toList();

    private final ClusterMemberReader reader = new ClusterMemberReader();

    /** What the tree reading makes of the bytes: the object, or empty when it is not JSON, not ours or malformed. */
    private static Optional<KubernetesObject> tree(byte[] value) {
        try {
            JsonNode json = TREE.readTree(value);
            if (json == null || json.isMissingNode()) {
                return Optional.empty();
            }
            return ObjectDecoder.decode(json);
        } catch (IOException | MalformedObjectException e) {
            return Optional.empty();
        }
    }

    private void assertSameAsTree(byte[] value, String what) {
        Optional<KubernetesObject> fast = reader.read(value);
        if (fast.isPresent()) {
            assertEquals(tree(value), fast, what + ": " + new String(value, StandardCharsets.UTF_8));
        }
    }

    /** Every object of every fixture (scenarios, describe, ...) that is JSON-able. */
    private static List<ObjectNode> fixtures() throws IOException {
        YAMLMapper yaml = new YAMLMapper();
        List<ObjectNode> objects = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("src/test/resources"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).toList()) {
                JsonNode root;
                try {
                    root = yaml.readTree(file.toFile());
                } catch (IOException e) {
                    continue; // several documents in a file: not a fixture of objects
                }
                collect(root, objects);
            }
        }
        return objects;
    }

    private static void collect(JsonNode node, List<ObjectNode> into) {
        if (node == null) {
            return;
        }
        if (node.isObject() && node.has("apiVersion") && node.has("kind")) {
            into.add((ObjectNode) node);
        }
        node.forEach(child -> collect(child, into));
    }

    @Test
    void readsEveryWellFormedMemberOfTheFixturesAsTheTreeDoes() throws IOException {
        int answered = 0;
        for (ObjectNode object : fixtures()) {
            byte[] value = JSON.writeValueAsBytes(object);
            Optional<KubernetesObject> tree = tree(value);
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
        List<ObjectNode> fixtures = fixtures().stream()
                .filter(o -> tree(bytes(o)).map(k -> FAST.contains(k.kind())).orElse(false)).toList();
        Random random = new Random(20261125);
        int answered = 0;
        for (int i = 0; i < 30_000; i++) {
            ObjectNode object = fixtures.get(random.nextInt(fixtures.size())).deepCopy();
            int mutations = 1 + random.nextInt(3);
            for (int m = 0; m < mutations; m++) {
                mutate(object, random);
            }
            byte[] value = bytes(object);
            if (random.nextInt(10) == 0) {
                value = textually(value, random);
            }
            assertSameAsTree(value, "mutation " + i);
            if (reader.read(value).isPresent()) {
                answered++;
            }
        }
        assertTrue(answered > 1_000, "mutations that leave a readable member are still read fast: " + answered);
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

    private static byte[] bytes(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Replaces, removes or adds a value somewhere in the object, with a value of any JSON type. */
    private static void mutate(ObjectNode root, Random random) {
        List<JsonNode> containers = new ArrayList<>();
        collectContainers(root, containers);
        JsonNode container = containers.get(random.nextInt(containers.size()));
        JsonNode value = randomValue(random);
        if (container instanceof ObjectNode object) {
            List<String> names = new ArrayList<>();
            object.fieldNames().forEachRemaining(names::add);
            String[] known = {"apiVersion", "kind", "metadata", "name", "namespace", "generation", "labels", "spec", "status",
                    "clusterName", "version", "observedGeneration", "replicas", "readyReplicas", "updatedReplicas",
                    "unavailableReplicas", "initialized", "initialization", "controlPlaneInitialized", "conditions", "type",
                    "reason", "message", "cluster.x-k8s.io/cluster-name", "cluster.x-k8s.io/deployment-name"};
            int choice = random.nextInt(3);
            if (choice == 0 && !names.isEmpty()) {
                object.remove(names.get(random.nextInt(names.size())));
            } else if (choice == 1 && !names.isEmpty()) {
                object.set(names.get(random.nextInt(names.size())), value);
            } else {
                object.set(known[random.nextInt(known.length)], value);
            }
        } else if (container instanceof ArrayNode array) {
            if (array.isEmpty() || random.nextBoolean()) {
                array.add(value);
            } else {
                array.set(random.nextInt(array.size()), value);
            }
        }
    }

    private static void collectContainers(JsonNode node, List<JsonNode> into) {
        if (node.isContainerNode()) {
            into.add(node);
            node.forEach(child -> collectContainers(child, into));
        }
    }

    private static JsonNode randomValue(Random random) {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        return switch (random.nextInt(14)) {
            case 0 -> nodes.nullNode();
            case 1 -> nodes.booleanNode(random.nextBoolean());
            case 2 -> nodes.numberNode(random.nextInt(5) - 1);
            case 3 -> nodes.numberNode(-1L - random.nextInt(3));
            case 4 -> nodes.numberNode(1L << 40);
            case 5 -> nodes.numberNode(BigInteger.ONE.shiftLeft(70));
            case 6 -> nodes.numberNode(1.5);
            case 7 -> nodes.textNode("");
            case 8 -> nodes.textNode("v1.2" + random.nextInt(10) + ".1");
            case 9 -> nodes.textNode("alpha");
            case 10 -> nodes.textNode("True");
            case 11 -> nodes.arrayNode().add(nodes.objectNode().put("type", "Ready").put("status", "False"));
            case 12 -> nodes.objectNode().put("cluster.x-k8s.io/cluster-name", "beta");
            default -> nodes.objectNode();
        };
    }

    /** A change JSON's tree cannot show: a field repeated, content after the object, a cut. */
    private static byte[] textually(byte[] value, Random random) {
        String text = new String(value, StandardCharsets.UTF_8);
        String changed = switch (random.nextInt(4)) {
            case 0 -> text.replaceFirst("\\{", "{\"spec\":{\"clusterName\":\"zeta\"},");
            case 1 -> text.replaceFirst("\"metadata\":\\{", "\"metadata\":{\"name\":\"zeta\",");
            case 2 -> text + " {}";
            default -> text.substring(0, random.nextInt(text.length()));
        };
        return changed.getBytes(StandardCharsets.UTF_8);
    }
}
