package io.statusaggregator.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.model.ObjectKind;
import io.statusaggregator.model.json.OversizedObject;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;

/**
 * The largest record the object-state producer sends ({@code max.request.size}, 1 MiB by Kafka's default), and what
 * is sent instead of an object whose record would be larger even with only the fields the rules read: a stand-in
 * ({@link OversizedObject}) with the object's identity, an EKS-A Cluster's status, and the head of the object, which
 * aggregation reads as an object that cannot be read. Sent as it is, the record would be refused, and retried for
 * ever while its cluster's status stayed as it was.
 */
final class RecordSizeLimit {
    /** How the limit is set, in the application's words. */
    static final String SETTING = "kafka." + ProducerConfig.MAX_REQUEST_SIZE_CONFIG;
    /** Kafka's default {@code max.request.size}. */
    static final int KAFKA_DEFAULT = 1 << 20;
    /** An EKS-A Cluster's status larger than this is left out of its stand-in: the stand-in must stay small. */
    static final int LONGEST_STATUS = 65_536;
    /** More than a record's own bytes beyond its key and value (batch and record headers), for the quick check. */
    private static final int OVERHEAD = 1_024;

    private final int limit;

    RecordSizeLimit(int limit) {
        this.limit = limit;
    }

    /** The limit the object-state producer has with these Kafka client settings. */
    static RecordSizeLimit of(Map<String, Object> kafka) {
        Object set = kafka.get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        if (set == null) {
            return new RecordSizeLimit(KAFKA_DEFAULT);
        }
        try {
            int bytes = set instanceof Number n ? n.intValue() : Integer.parseInt(set.toString().trim());
            return new RecordSizeLimit(bytes);
        } catch (NumberFormatException e) {
            return new RecordSizeLimit(KAFKA_DEFAULT); // the producer refuses to start on it, saying why
        }
    }

    int limit() {
        return limit;
    }

    /** The record's size as the producer measures it before it sends (the upper bound of a batch of one). */
    static int size(String key, String value) {
        return AbstractRecords.estimateSizeInBytesUpperBound(RecordBatch.CURRENT_MAGIC_VALUE, CompressionType.NONE,
                key.getBytes(StandardCharsets.UTF_8), value == null ? null : value.getBytes(StandardCharsets.UTF_8),
                Record.EMPTY_HEADERS);
    }

    /**
     * The stand-in to send for {@code value}, the object {@code reduced} as text, when its record would be over the
     * limit; empty when it fits.
     */
    Optional<Oversized> check(ObjectKind kind, String key, ObjectNode reduced, String value) {
        // UTF-8 takes at most 3 bytes per UTF-16 char: most records are far under the limit, and not encoded here.
        if ((long) (key.length() + value.length()) * 3 + OVERHEAD <= limit) {
            return Optional.empty();
        }
        int size = size(key, value);
        if (size <= limit) {
            return Optional.empty();
        }
        OversizedObject oversized = new OversizedObject(size, limit, SETTING, head(value));
        String standIn = standIn(kind, reduced, oversized, true).toString();
        if (size(key, standIn) > limit) {
            standIn = standIn(kind, reduced, oversized, false).toString();
        }
        return Optional.of(new Oversized(oversized, standIn));
    }

    /** An object too large to send, and the stand-in to send instead. */
    record Oversized(OversizedObject object, String standIn) {
    }

    /**
     * The object's identity (and its labels and an EKS-A Cluster's status, when {@code full}) and what
     * {@code oversized} says. Without them it is a few KB at most: the head, a name and namespace, numbers.
     */
    static ObjectNode standIn(ObjectKind kind, ObjectNode reduced, OversizedObject oversized, boolean full) {
        ObjectNode standIn = JsonNodeFactory.instance.objectNode();
        standIn.set("apiVersion", reduced.get("apiVersion"));
        standIn.set("kind", reduced.get("kind"));
        ObjectNode metadata = standIn.putObject("metadata");
        JsonNode from = reduced.path("metadata");
        for (String field : List.of("namespace", "name", "generation", "resourceVersion", "creationTimestamp", "uid")) {
            if (from.hasNonNull(field)) {
                metadata.set(field, from.get(field));
            }
        }
        if (full && from.path("labels").isObject()) {
            metadata.set("labels", from.get("labels"));
        }
        JsonNode status = reduced.get("status");
        // The status the Cluster shows: so that it is written over, not rewritten for ever (read-your-own-writes).
        if (full && kind == ObjectKind.EKSA_CLUSTER && status != null && status.toString().length() <= LONGEST_STATUS) {
            standIn.set("status", status);
        }
        ObjectNode tooLarge = standIn.putObject(OversizedObject.FIELD);
        tooLarge.put("bytes", oversized.bytes());
        tooLarge.put("limit", oversized.limit());
        tooLarge.put("limitName", oversized.limitName());
        tooLarge.put("head", oversized.head());
        return standIn;
    }

    /** The first {@link OversizedObject#HEAD} characters of {@code text}, never half a surrogate pair. */
    static String head(String text) {
        if (text.length() <= OversizedObject.HEAD) {
            return text;
        }
        int end = OversizedObject.HEAD;
        return text.substring(0, Character.isHighSurrogate(text.charAt(end - 1)) ? end - 1 : end);
    }
}
