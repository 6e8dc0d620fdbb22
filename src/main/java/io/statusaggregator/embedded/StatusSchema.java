package io.statusaggregator.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.client.server.mock.crud.KubernetesCrudDispatcherException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The status schema of a CRD, applied to a status written as a real API server applies a structural schema: the
 * fields it does not list are dropped (pruning), and a value that breaks its {@code required}, {@code maxLength} or
 * {@code minLength} makes the write invalid (422). The rest of OpenAPI's validation is not applied.
 */
final class StatusSchema {
    private static final String EKSA_CLUSTERS = "/embedded/eksa-clusters-crd.yaml";

    private final JsonNode schema;

    private StatusSchema(JsonNode schema) {
        this.schema = schema;
    }

    /** The status schema of EKS Anywhere's own Cluster CRD (its copy and origin: {@value #EKSA_CLUSTERS}). */
    static StatusSchema eksaCluster() {
        try (InputStream crd = StatusSchema.class.getResourceAsStream(EKSA_CLUSTERS)) {
            if (crd == null) {
                throw new IllegalStateException(EKSA_CLUSTERS + " is missing from the application");
            }
            JsonNode status = new YAMLMapper().readTree(crd).path("spec").path("versions").path(0)
                    .path("schema").path("openAPIV3Schema").path("properties").path("status");
            if (!status.path("properties").isObject()) {
                throw new IllegalStateException(EKSA_CLUSTERS + " has no status schema");
            }
            return new StatusSchema(status);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code object}, when it is an EKS-A Cluster, with its status pruned and checked, as the API server does on
     * every write; refused (422 Invalid) when the status breaks the schema.
     */
    JsonNode checkedCluster(JsonNode object) throws KubernetesCrudDispatcherException {
        if (!(object instanceof ObjectNode cluster) || !isEksaCluster(cluster)) {
            return object;
        }
        List<String> invalid = apply(cluster);
        if (!invalid.isEmpty()) {
            throw new KubernetesCrudDispatcherException("Cluster.anywhere.eks.amazonaws.com \""
                    + cluster.path("metadata").path("name").asText() + "\" is invalid: "
                    + (invalid.size() == 1 ? invalid.get(0) : invalid.toString()), 422);
        }
        return cluster;
    }

    private static boolean isEksaCluster(JsonNode object) {
        return object.path("kind").asText().equals("Cluster")
                && object.path("apiVersion").asText().startsWith("anywhere.eks.amazonaws.com/");
    }

    /**
     * Prunes {@code object}'s status in place and returns what makes it invalid, each as the API server words it
     * ({@code status.conditions[0].message: Too long: may not be longer than 10240}); empty when it is valid.
     */
    List<String> apply(ObjectNode object) {
        List<String> invalid = new ArrayList<>();
        if (object.get("status") instanceof ObjectNode status) {
            apply(status, schema, "status", invalid);
        }
        return invalid;
    }

    private static void apply(JsonNode value, JsonNode schema, String path, List<String> invalid) {
        if (value instanceof ObjectNode object) {
            JsonNode properties = schema.path("properties");
            boolean keepUnknown = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
            for (Iterator<Map.Entry<String, JsonNode>> fields = object.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                JsonNode fieldSchema = properties.get(field.getKey());
                if (fieldSchema == null && schema.path("additionalProperties").isObject()) {
                    fieldSchema = schema.get("additionalProperties");
                }
                if (fieldSchema != null) {
                    apply(field.getValue(), fieldSchema, path + "." + field.getKey(), invalid);
                } else if (!keepUnknown) {
                    fields.remove();
                }
            }
            schema.path("required").forEach(required -> {
                if (!object.has(required.asText())) {
                    invalid.add(path + "." + required.asText() + ": Required value");
                }
            });
        } else if (value instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                apply(array.get(i), schema.path("items"), path + "[" + i + "]", invalid);
            }
        } else if (value.isTextual()) {
            int length = value.asText().codePointCount(0, value.asText().length());
            if (schema.has("maxLength") && length > schema.get("maxLength").asInt()) {
                invalid.add(path + ": Too long: may not be longer than " + schema.get("maxLength").asInt());
            }
            if (schema.has("minLength") && length < schema.get("minLength").asInt()) {
                invalid.add(path + ": Invalid value: \"" + value.asText() + "\": " + path
                        + " in body should be at least " + schema.get("minLength").asInt() + " chars long");
            }
        }
    }
}
