package io.statusaggregator.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.statusaggregator.cli.ComputeRunner;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs every scenario under {@code src/test/resources/scenarios}: objects in, expected status out, through the
 * same path as the {@code compute} command (decode, group by cluster, rules, encode).
 *
 * <p>A scenario file holds {@code description}, {@code now} (the time of the computation), {@code objects} (the
 * Kubernetes objects) and {@code expect}: the status of the cluster named by {@code cluster} (default: the first
 * EKS-A Cluster). Each top-level field given in {@code expect} must equal the computed one ({@code null}: must be
 * absent). Each condition given must be present with exactly the given type, status, reason, message and severity
 * (a field left out must be absent, as reason, message and severity are on a True condition), and with the given
 * {@code lastTransitionTime} where one is given; the conditions given must appear in the computed order.
 *
 * <p>A scenario that holds {@code v1beta1} CAPI objects runs twice: as written, and (named {@code ... [v1beta2]}) with
 * those objects converted to {@code v1beta2} as Cluster API converts them ({@link V1beta2Conversion}), expecting the
 * same status. Where the contract reads the two versions differently, the file says so in
 * {@code v1beta2: {reason, expect}}: why, and the status expected at {@code v1beta2} instead.
 */
class ScenarioTest {

    @TestFactory
    Stream<DynamicTest> scenarios() throws IOException, URISyntaxException {
        Path root = Path.of(getClass().getResource("/scenarios").toURI());
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        assertTrue(files.size() > 0, "no scenarios found under " + root);
        List<DynamicTest> tests = new ArrayList<>();
        for (Path file : files) {
            String name = root.relativize(file).toString();
            Scenario scenario;
            Optional<Scenario> atV1beta2;
            try {
                scenario = Scenario.load(file);
                atV1beta2 = scenario.atV1beta2();
            } catch (IOException | RuntimeException e) {
                tests.add(DynamicTest.dynamicTest(name, file.toUri(), () -> fail(name + " cannot be read", e)));
                continue;
            }
            tests.add(DynamicTest.dynamicTest(name, file.toUri(), () -> run(scenario)));
            atV1beta2.ifPresent(converted -> tests.add(
                    DynamicTest.dynamicTest(name + " [v1beta2]", file.toUri(), () -> run(converted))));
        }
        return tests.stream();
    }

    private static void run(Scenario scenario) throws IOException {
        ComputeRunner.Result result = ComputeRunner.compute(scenario.objectsYaml(), scenario.now(), scenario.capiNamespace());
        assertEquals(0, result.exitCode(), () -> "compute failed: " + result.err());
        JsonNode computed = result.statusOf(scenario.cluster())
                .orElseThrow(() -> new AssertionError("no status computed for cluster " + scenario.cluster() + "\n" + result.out()));
        assertStatus(scenario.expect(), computed);
        assertComputingAgainChangesNothing(scenario, computed);
    }

    /**
     * Computed against its own output, the status is the same: the Cluster showing what the aggregator wrote must
     * not make it write again (at a later time, too: no transition time moves when no status does).
     */
    private static void assertComputingAgainChangesNothing(Scenario scenario, JsonNode computed) throws IOException {
        YAMLMapper yaml = new YAMLMapper();
        StringBuilder objects = new StringBuilder();
        try (var values = yaml.readerFor(JsonNode.class).<JsonNode>readValues(scenario.objectsYaml())) {
            while (values.hasNextValue()) {
                ObjectNode object = (ObjectNode) values.nextValue();
                if (object.path("apiVersion").asText().startsWith("anywhere.eks.amazonaws.com/")
                        && ComputeRunner.names(object.path("metadata"), scenario.cluster())) {
                    object.set("status", computed);
                }
                objects.append("---\n").append(yaml.writeValueAsString(object).replaceFirst("^---\n", ""));
            }
        }
        ComputeRunner.Result again = ComputeRunner.compute(objects.toString(), scenario.now().plusSeconds(3600), scenario.capiNamespace());
        assertEquals(0, again.exitCode(), again.err());
        assertEquals(computed, again.statusOf(scenario.cluster()).orElseThrow(), "computing again from the status just computed");
    }

    static void assertStatus(JsonNode expected, JsonNode computed) {
        Iterator<Map.Entry<String, JsonNode>> fields = expected.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            if (field.getKey().equals("conditions")) {
                assertConditions(field.getValue(), computed.path("conditions"));
            } else if (field.getValue().isNull()) {
                assertTrue(!computed.has(field.getKey()), () -> field.getKey() + " must be absent, computed: " + computed);
            } else {
                assertEquals(field.getValue(), computed.get(field.getKey()), () -> field.getKey() + " in " + computed);
            }
        }
    }

    private static void assertConditions(JsonNode expected, JsonNode computed) {
        List<String> computedOrder = new ArrayList<>();
        computed.forEach(c -> computedOrder.add(c.path("type").asText()));
        int lastIndex = -1;
        for (JsonNode want : expected) {
            String type = want.path("type").asText();
            int index = computedOrder.indexOf(type);
            if (index < 0) {
                fail("condition " + type + " missing from " + computed);
            }
            assertTrue(index > lastIndex, () -> "condition " + type + " out of order in " + computedOrder);
            lastIndex = index;
            ObjectNode got = computed.get(index).deepCopy();
            if (!want.has("lastTransitionTime")) {
                got.remove("lastTransitionTime");
            }
            assertEquals(want, got, () -> "condition " + type);
        }
    }
}
