package io.statusaggregator.model.json;

import io.statusaggregator.model.KubernetesNames;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A read cursor on one JSON object that knows its path, so that every type error names the field. An absent field
 * and an explicit null are the same: Kubernetes omits empty fields.
 */
final class JsonFields {
    private final JsonNode node;
    /**
     * Where it is, made from its parent's only when asked: most objects read name no error, and making every path
     * was a twentieth of what reading an EKS-A Cluster's spec allocated.
     */
    private String path;
    private final JsonFields parent;
    private final String field;
    /** Its index in the list under {@code field}, or -1. */
    private final int index;

    private JsonFields(JsonNode node, String path) {
        this.node = node;
        this.path = path;
        this.parent = null;
        this.field = null;
        this.index = -1;
    }

    private JsonFields(JsonNode node, JsonFields parent, String field, int index) {
        this.node = node;
        this.parent = parent;
        this.field = field;
        this.index = index;
    }

    static JsonFields root(JsonNode node) throws MalformedObjectException {
        if (!node.isObject()) {
            throw new MalformedObjectException("", "expected a Kubernetes object (a mapping), got " + describe(node));
        }
        return new JsonFields(node, "");
    }

    String path() {
        if (path == null) {
            String under = parent.pathOf(field);
            path = index < 0 ? under : under + "[" + index + "]";
        }
        return path;
    }

    String pathOf(String field) {
        String path = path();
        return path.isEmpty() ? field : path + "." + field;
    }

    boolean has(String field) {
        JsonNode value = node.get(field);
        return value != null && !value.isNull();
    }

    /** The object under {@code field}; an empty one when the field is absent. */
    JsonFields object(String field) throws MalformedObjectException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return new JsonFields(JsonNodeFactory.instance.objectNode(), this, field, -1);
        }
        if (!value.isObject()) {
            throw new MalformedObjectException(pathOf(field), "expected an object, got " + describe(value));
        }
        return new JsonFields(value, this, field, -1);
    }

    /** The objects of the list under {@code field}; none when the field is absent. */
    List<JsonFields> objects(String field) throws MalformedObjectException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray()) {
            throw new MalformedObjectException(pathOf(field), "expected a list, got " + describe(value));
        }
        List<JsonFields> items = new ArrayList<>(value.size());
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            if (!item.isObject()) {
                throw new MalformedObjectException(
                        pathOf(field) + "[" + i + "]", "expected an object, got " + describe(item));
            }
            items.add(new JsonFields(item, this, field, i));
        }
        return items;
    }

    Optional<String> string(String field) throws MalformedObjectException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isTextual()) {
            String hint = value.isNumber() ? " (quote it, as in \"1.30\")" : "";
            throw new MalformedObjectException(pathOf(field), "expected a string, got " + describe(value) + hint);
        }
        return Optional.of(value.textValue());
    }

    String requiredString(String field) throws MalformedObjectException {
        Optional<String> value = string(field);
        if (value.isEmpty() || value.get().isEmpty()) {
            throw new MalformedObjectException(pathOf(field), "required");
        }
        return value.get();
    }

    /** A count of nodes or replicas: a whole number, not negative. */
    Optional<Integer> count(String field) throws MalformedObjectException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw new MalformedObjectException(pathOf(field), "expected a whole number, got " + describe(value));
        }
        if (value.intValue() < 0) {
            throw new MalformedObjectException(pathOf(field), "must not be negative, got " + value.intValue());
        }
        return Optional.of(value.intValue());
    }

    int countOrZero(String field) throws MalformedObjectException {
        return count(field).orElse(0);
    }

    Optional<Long> generation(String field) throws MalformedObjectException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < 0) {
            throw new MalformedObjectException(
                    pathOf(field), "expected a generation (a whole number, not negative), got " + describe(value));
        }
        return Optional.of(value.longValue());
    }

    boolean bool(String field) throws MalformedObjectException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            throw new MalformedObjectException(pathOf(field), "expected true or false, got " + describe(value));
        }
        return value.booleanValue();
    }

    Map<String, String> stringMap(String field) throws MalformedObjectException {
        JsonFields map = object(field);
        Map<String, String> result = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : map.node.properties()) {
            result.put(entry.getKey(), map.string(entry.getKey()).orElse(""));
        }
        return result;
    }

    private static String describe(JsonNode value) {
        if (value.isArray()) {
            return "a list";
        }
        if (value.isObject()) {
            return "an object";
        }
        if (value.isTextual()) {
            return "the string " + KubernetesNames.shown(value.textValue());
        }
        if (value.isMissingNode()) {
            return "nothing";
        }
        if (value.isNull()) {
            return "null";
        }
        return value.getNodeType().name().toLowerCase() + " " + value;
    }
}
