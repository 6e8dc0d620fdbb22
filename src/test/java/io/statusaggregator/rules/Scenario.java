package io.statusaggregator.rules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;

/** One scenario file; see {@link ScenarioTest} for its format. */
record Scenario(String description, Instant now, String capiNamespace, String objectsYaml, String cluster, JsonNode expect) {
    private static final YAMLMapper YAML = new YAMLMapper();

    static Scenario load(Path file) throws IOException {
        JsonNode root = YAML.readTree(file.toFile());
        Objects.requireNonNull(root.get("objects"), file + ": objects");
        Objects.requireNonNull(root.get("expect"), file + ": expect");
        StringBuilder objects = new StringBuilder();
        for (JsonNode object : root.get("objects")) {
            objects.append("---\n").append(YAML.writeValueAsString(object).replaceFirst("^---\n", ""));
        }
        String cluster = root.path("cluster").asText(null);
        if (cluster == null) {
            for (JsonNode object : root.get("objects")) {
                if (object.path("apiVersion").asText().startsWith("anywhere.eks.amazonaws.com/")) {
                    cluster = object.path("metadata").path("name").asText();
                    break;
                }
            }
        }
        return new Scenario(root.path("description").asText(""),
                Instant.parse(root.path("now").asText("2023-06-05T21:58:57Z")),
                root.path("capiNamespace").asText("eksa-system"),
                objects.toString(), cluster, root.get("expect"));
    }
}
