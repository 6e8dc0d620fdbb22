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
        // prod's CNI is observed in the file, dev's is not.
        assertEquals(List.of(CNI_NOTE_START + "default/dev: "), notes(result).stream()
                .map(note -> note.substring(0, note.indexOf(": ", CNI_NOTE_START.length()) + 2)).toList(), result.getErrorOutput());
    }

    private static final String CNI_NOTE_START = "note: no CNIObservation in the input for ";

    /** The notes on standard error. */
    private static List<String> notes(LaunchResult result) {
        return result.getErrorOutput().lines().filter(line -> line.startsWith("note: ")).toList();
    }

    /**
     * What {@code kubectl get ... -o yaml} gives: the Clusters and their CAPI objects, but no CNIObservation, a kind only
     * the aggregator makes. DefaultCNIConfigured is False for every cluster, so one line on standard error says why;
     * standard output holds the statuses alone, as before.
     */
    @Test
    void withoutACniObservationANoteSaysWhyDefaultCniConfiguredIsFalse(QuarkusMainLauncher launcher) throws IOException {
        String fleet = Files.readString(Path.of(FLEET));
        Path kubectl = Files.createTempFile("kubectl", ".yaml");
        Files.writeString(kubectl, String.join("---\n", java.util.Arrays.stream(fleet.split("(?m)^---\n"))
                .filter(document -> !document.contains("kind: CNIObservation")).toList()));
        LaunchResult result = launcher.launch("compute", kubectl.toString(), "--now", "2026-11-22T10:00:00Z");
        assertEquals(0, result.exitCode(), result.getErrorOutput());

        List<JsonNode> documents = documents(result.getOutput());
        assertEquals(2, documents.size(), "standard output holds the statuses and nothing else: " + result.getOutput());
        JsonNode prod = documents.get(0);
        assertEquals("False", condition(prod, "DefaultCNIConfigured").path("status").asText());
        assertEquals("WaitingForDefaultCNIConfigured", condition(prod, "DefaultCNIConfigured").path("reason").asText());
        assertEquals("False", condition(prod, "Ready").path("status").asText());

        List<String> notes = notes(result);
        assertEquals(1, notes.size(), result.getErrorOutput());
        String note = notes.get(0);
        assertTrue(note.startsWith(CNI_NOTE_START + "default/prod, default/dev: "), note);
        assertTrue(note.contains("DefaultCNIConfigured is False"), note);
        assertTrue(note.contains("kubectl"), note);

        // Observed for every cluster (dev's Cilium not ready yet): nothing to say.
        Path observed = Files.createTempFile("observed", ".yaml");
        Files.writeString(observed, fleet + """
                ---
                apiVersion: statusaggregator.io/v1alpha1
                kind: CNIObservation
                metadata: {namespace: eksa-system, name: dev}
                spec: {clusterName: dev, cni: cilium, ready: false}
                """);
        LaunchResult quiet = launcher.launch("compute", observed.toString(), "--now", "2026-11-22T10:00:00Z");
        assertEquals(0, quiet.exitCode(), quiet.getErrorOutput());
        assertEquals(List.of(), notes(quiet), quiet.getErrorOutput());
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
