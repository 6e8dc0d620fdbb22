package io.statusaggregator.model.json;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.statusaggregator.model.KubernetesObject;
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

/**
 * The fixtures and seeded mutations the streaming readers' tests hold them to {@link ObjectDecoder} with: objects of
 * the test fixtures, changed in ways a tree can show (a value of any type replaced, removed or added) and in ways it
 * cannot (a field repeated, content after the object, a cut).
 */
final class JsonMutations {
    static final ObjectMapper JSON = new ObjectMapper();

    /** As the aggregator reads a record's value with the tree. */
    private static final ObjectReader TREE = JSON.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private JsonMutations() {
    }

    /** What the tree reading makes of the bytes: the object, or empty when it is not JSON, not ours or malformed. */
    static Optional<KubernetesObject> tree(byte[] value) {
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

    /** Every JSON node of every YAML fixture (scenarios, describe, ...) that {@code which} accepts, at any depth. */
    static List<ObjectNode> fixtureNodes(java.util.function.Predicate<JsonNode> which) throws IOException {
        YAMLMapper yaml = new YAMLMapper();
        List<ObjectNode> nodes = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("src/test/resources"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                JsonNode root;
                try {
                    root = yaml.readTree(file.toFile());
                } catch (IOException e) {
                    continue; // several documents in a file: not a fixture of objects
                }
                collect(root, which, nodes);
            }
        }
        return nodes;
    }

    /** Every Kubernetes object (apiVersion and kind) of the fixtures. */
    static List<ObjectNode> fixtureObjects() throws IOException {
        return fixtureNodes(node -> node.has("apiVersion") && node.has("kind"));
    }

    private static void collect(JsonNode node, java.util.function.Predicate<JsonNode> which, List<ObjectNode> into) {
        if (node == null) {
            return;
        }
        if (node.isObject() && which.test(node)) {
            into.add((ObjectNode) node);
        }
        node.forEach(child -> collect(child, which, into));
    }

    static byte[] bytes(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code original}'s bytes after one to three {@link #mutate mutations} and, one time in ten, a change only the
     * text can show ({@link #textually}, with {@code repeated}).
     */
    static byte[] mutated(ObjectNode original, Random random, List<String> known, String repeated) {
        ObjectNode object = original.deepCopy();
        int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++) {
            mutate(object, random, known);
        }
        byte[] value = bytes(object);
        return random.nextInt(10) == 0 ? textually(value, random, repeated) : value;
    }

    /**
     * Replaces, removes or adds a value somewhere in the object, with a value of any JSON type; added fields are named
     * from {@code known} (the names the reader under test looks for).
     */
    private static void mutate(ObjectNode root, Random random, List<String> known) {
        List<JsonNode> containers = new ArrayList<>();
        collectContainers(root, containers);
        JsonNode container = containers.get(random.nextInt(containers.size()));
        JsonNode value = randomValue(random);
        if (container instanceof ObjectNode object) {
            List<String> names = new ArrayList<>();
            object.fieldNames().forEachRemaining(names::add);
            int choice = random.nextInt(3);
            if (choice == 0 && !names.isEmpty()) {
                object.remove(names.get(random.nextInt(names.size())));
            } else if (choice == 1 && !names.isEmpty()) {
                object.set(names.get(random.nextInt(names.size())), value);
            } else {
                object.set(known.get(random.nextInt(known.size())), value);
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
        return switch (random.nextInt(17)) {
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
            case 13 -> nodes.textNode("2023-06-05T21:58:57Z");
            case 14 -> nodes.textNode("1.2" + random.nextInt(10));
            case 15 -> nodes.arrayNode().add(nodes.objectNode().put("type", "Ready").put("status", "False")
                    .put("lastTransitionTime", random.nextBoolean() ? "2023-06-05T21:58:57Z" : "yesterday"));
            default -> nodes.objectNode();
        };
    }

    /**
     * A change JSON's tree cannot show: {@code repeated} (a {@code "field":value} pair the object already has) put
     * first, content after the object, or a cut.
     */
    private static byte[] textually(byte[] value, Random random, String repeated) {
        String text = new String(value, StandardCharsets.UTF_8);
        String changed = switch (random.nextInt(4)) {
            case 0 -> text.replaceFirst("\\{", "{" + java.util.regex.Matcher.quoteReplacement(repeated) + ",");
            case 1 -> text.replaceFirst("\"metadata\":\\{", "\"metadata\":{\"name\":\"zeta\",");
            case 2 -> text + " {}";
            default -> text.substring(0, random.nextInt(text.length()));
        };
        return changed.getBytes(StandardCharsets.UTF_8);
    }
}
