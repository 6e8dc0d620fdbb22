package io.statusaggregator.rules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** One scenario file; see {@link ScenarioTest} for its format. */
record Scenario(String description, Instant now, String capiNamespace, List<JsonNode> objects, String cluster,
        JsonNode expect, JsonNode v1beta2) {
    private static final YAMLMapper YAML = new YAMLMapper();

    static Scenario load(Path file) throws IOException {
        JsonNode root = YAML.readTree(file.toFile());
        Objects.requireNonNull(root.get("objects"), file + ": objects");
        Objects.requireNonNull(root.get("expect"), file + ": expect");
        List<JsonNode> objects = new ArrayList<>();
        root.get("objects").forEach(objects::add);
        String cluster = root.path("cluster").asText(null);
        if (cluster == null) {
            for (JsonNode object : objects) {
                if (object.path("apiVersion").asText().startsWith("anywhere.eks.amazonaws.com/")) {
                    cluster = object.path("metadata").path("name").asText();
                    break;
                }
            }
        }
        return new Scenario(root.path("description").asText(""),
                Instant.parse(root.path("now").asText("2023-06-05T21:58:57Z")),
                root.path("capiNamespace").asText("eksa-system"),
                List.copyOf(objects), cluster, root.get("expect"), root.get("v1beta2"));
    }

    /** The objects as one multi-document YAML text, as {@code compute} reads them. */
    String objectsYaml() {
        StringBuilder yaml = new StringBuilder();
        for (JsonNode object : objects) {
            try {
                yaml.append("---\n").append(YAML.writeValueAsString(object).replaceFirst("^---\n", ""));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return yaml.toString();
    }

    /**
     * This scenario with its CAPI objects at {@code v1beta2} ({@link V1beta2Conversion}), expecting the same status
     * unless the file says otherwise in {@code v1beta2: {reason, expect}}; empty when it holds no {@code v1beta1} CAPI
     * object, so nothing to convert.
     */
    Optional<Scenario> atV1beta2() {
        Optional<List<JsonNode>> converted = V1beta2Conversion.convert(objects, now);
        if (converted.isEmpty()) {
            if (v1beta2 != null) {
                throw new IllegalArgumentException("v1beta2 is given, but no v1beta1 CAPI object is there to convert");
            }
            return Optional.empty();
        }
        JsonNode expected = expect;
        if (v1beta2 != null) {
            if (v1beta2.path("reason").asText().isBlank() || !v1beta2.path("expect").isObject()) {
                throw new IllegalArgumentException("v1beta2 must hold a reason (why the status differs there) and an "
                        + "expect");
            }
            if (v1beta2.get("expect").equals(expect)) {
                throw new IllegalArgumentException("v1beta2.expect is expect: the exception is not needed");
            }
            expected = v1beta2.get("expect");
        }
        return Optional.of(new Scenario(description, now, capiNamespace, converted.get(), cluster, expected, null));
    }
}
