package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.quarkus.test.junit.main.Launch;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainLauncher;
import io.quarkus.test.junit.main.QuarkusMainTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The {@code compute} command as a user runs it: the application's own entry point, arguments, exit codes. */
@QuarkusMainTest
class ComputeCommandTest {
    /** The README's example file. */
    static final String FLEET = "src/test/resources/compute/fleet.yaml";

    private static List<JsonNode> documents(String yaml) throws IOException {
        List<JsonNode> documents = new ArrayList<>();
        try (MappingIterator<JsonNode> values = new YAMLMapper().readerFor(JsonNode.class).readValues(yaml)) {
            while (values.hasNextValue()) {
                documents.add(values.nextValue());
            }
        }
        return documents;
    }

    private static JsonNode condition(JsonNode document, String type) {
        for (JsonNode c : document.path("status").path("conditions")) {
            if (c.path("type").asText().equals(type)) {
                return c;
            }
        }
        throw new AssertionError("no condition " + type + " in " + document);
    }

    @Test
    @Launch(value = {"compute", FLEET, "--now", "2026-11-22T10:00:00Z"})
    void computesEveryClusterOfTheReadmeExampleInInputOrder(LaunchResult result) throws IOException {
        List<JsonNode> documents = documents(result.getOutput());
        assertEquals(2, documents.size(), result.getOutput());

        JsonNode prod = documents.get(0);
        assertEquals("anywhere.eks.amazonaws.com/v1alpha1", prod.path("apiVersion").asText());
        assertEquals("Cluster", prod.path("kind").asText());
        assertEquals("default", prod.path("metadata").path("namespace").asText());
        assertEquals("prod", prod.path("metadata").path("name").asText());
        assertEquals(4, prod.path("metadata").path("generation").asInt());
        assertEquals(4, prod.path("status").path("observedGeneration").asInt());
        assertEquals("True", condition(prod, "Ready").path("status").asText());
        assertEquals("2026-11-22T10:00:00Z", condition(prod, "Ready").path("lastTransitionTime").asText());

        JsonNode dev = documents.get(1);
        assertEquals("dev", dev.path("metadata").path("name").asText());
        assertEquals("WaitingForControlPlaneInitialized", condition(dev, "ControlPlaneInitialized").path("reason").asText());
        assertEquals("Scaling up control plane to 1 replicas (actual 0)", condition(dev, "Ready").path("message").asText());
    }

    @Test
    void badInputExitsWithTwoAndNamesTheDocumentAndField(QuarkusMainLauncher launcher) throws IOException {
        Path file = Files.createTempFile("bad", ".yaml");
        Files.writeString(file, Files.readString(Path.of(FLEET)).replace("replicas: 3\n  readyReplicas: 3", "replicas: -3\n  readyReplicas: 3"),
                StandardCharsets.UTF_8);
        LaunchResult result = launcher.launch("compute", file.toString());
        assertEquals(2, result.exitCode());
        assertEquals("", result.getOutput());
        assertTrue(result.getErrorOutput().contains("document 2 (KubeadmControlPlane eksa-system/prod): status.replicas: must not be negative, got -3"),
                result.getErrorOutput());
    }

    @Test
    @Launch(value = {"compute", "no/such/file.yaml"}, exitCode = 2)
    void aMissingFileIsBadInput(LaunchResult result) {
        assertTrue(result.getErrorOutput().contains("cannot read no/such/file.yaml"), result.getErrorOutput());
    }

    @Test
    @Launch(value = {"compute", "--help"})
    void helpExplainsTheCommand(LaunchResult result) {
        String help = result.getOutput();
        assertTrue(help.contains("Usage: status-aggregator compute"), help);
        assertTrue(help.contains("- reads standard input"), help);
        assertTrue(help.contains("--now"), help);
        assertTrue(help.contains("Exit status"), help);
    }
}
