package io.statusaggregator.model.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;
import java.util.Optional;

/**
 * What ingest sends in place of an object too large for the object-state topic even with only the fields the rules
 * read: the object's identity (and an EKS-A Cluster's status) and, under field {@value #FIELD}, how large its record
 * would have been, the limit it is over, and the head of it. Read back, it is an object that cannot be read
 * ({@link ObjectDecoder} refuses it with {@link #problem()}), so its cluster's status says so.
 *
 * @param bytes     the size of the record it would have been (key, value and Kafka's own overhead)
 * @param limit     the largest record the producer sends
 * @param limitName the setting that sets {@code limit}
 * @param head      the object's reduced JSON, cut at {@link #HEAD} characters
 */
public record OversizedObject(long bytes, long limit, String limitName, String head) {
    /** The field of the stand-in record that says the object is too large; no Kubernetes object has it. */
    public static final String FIELD = "tooLarge";
    /** The characters of the object's JSON a stand-in record keeps, for its dead letter. */
    public static final int HEAD = 16_384;

    /**
     * {@code too large for Kafka: 1.5 MiB with only the fields the rules read, over the 1 MiB a record may hold
     * (kafka.max.request.size)}. The sizes are rounded (the object's up), so that the words stay the same while the
     * object grows or shrinks by a few bytes: an EKS-A Cluster's next state holds the status that says this.
     */
    public String problem() {
        return "too large for Kafka: %s with only the fields the rules read, over the %s a record may hold (%s)"
                .formatted(size(bytes, true), size(limit, false), limitName);
    }

    /** {@code bytes} in MiB (one decimal) from 1 MiB, else in KiB, else in bytes; rounded up or down. */
    static String size(long bytes, boolean up) {
        if (bytes >= 1 << 20) {
            double tenths = bytes * 10.0 / (1 << 20);
            long rounded = (long) (up ? Math.ceil(tenths) : Math.floor(tenths));
            return rounded % 10 == 0 ? (rounded / 10) + " MiB" : String.format(Locale.ROOT, "%.1f MiB", rounded / 10.0);
        }
        if (bytes >= 1 << 10) {
            double kib = bytes / 1024.0;
            return (long) (up ? Math.ceil(kib) : Math.floor(kib)) + " KiB";
        }
        return bytes + " bytes";
    }

    /** What a stand-in record says under {@value #FIELD}; empty for any other record. */
    public static Optional<OversizedObject> of(JsonNode object) {
        JsonNode field = object.get(FIELD);
        if (field == null || !field.isObject()) {
            return Optional.empty();
        }
        return Optional.of(new OversizedObject(field.path("bytes").asLong(), field.path("limit").asLong(),
                field.path("limitName").asText(""), field.path("head").asText("")));
    }
}
