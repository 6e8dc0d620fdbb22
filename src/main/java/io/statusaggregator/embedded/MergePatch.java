package io.statusaggregator.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A JSON merge patch as RFC 7386 and a real API server apply it. Fabric8's own (7.5.2) merges a patch with Jackson's
 * readerForUpdating: it appends to lists instead of replacing them and keeps {@code null} fields instead of removing
 * them, so a status patch could never shorten {@code conditions} or clear {@code failureReason}.
 */
final class MergePatch {
    private MergePatch() {
    }

    /** {@code target} with {@code patch} applied; neither is changed. */
    static JsonNode apply(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch.deepCopy();
        }
        ObjectNode result = target != null && target.isObject()
                ? ((ObjectNode) target).deepCopy()
                : JsonNodeFactory.instance.objectNode();
        patch.properties().forEach(field -> {
            if (field.getValue().isNull()) {
                result.remove(field.getKey());
            } else {
                result.set(field.getKey(), apply(result.get(field.getKey()), field.getValue()));
            }
        });
        return result;
    }
}
