package io.statusaggregator.model.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.io.SegmentedStringWriter;
import com.fasterxml.jackson.core.util.BufferRecycler;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.KubernetesVersions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Optional;

/**
 * A status as JSON text, written from the record by Jackson's streaming generator, with no tree in between: in the
 * contract's order, the text of {@link StatusEncoder#encode}'s tree ({@code FeedEncodingTest} holds it to the tree's
 * text).
 *
 * <p>The feeds write each status change with it: the trees, and the maps sorting their keys, were most of what
 * publishing a change allocated.
 */
public final class StatusJson {
    /**
     * The generators' factory: Jackson's defaults, as the trees' writers have them; a generator leaves its target open.
     */
    public static final JsonFactory FACTORY =
            JsonFactory.builder().disable(StreamWriteFeature.AUTO_CLOSE_TARGET).build();

    private StatusJson() {
    }

    /** The status in the contract's order: {@code StatusEncoder.encode(status).toString()}. */
    public static String text(ClusterStatus status) {
        return text(json -> write(json, status));
    }

    /** What is written to a generator, as a String (in Jackson's recycled buffers, as its mappers write a String). */
    public static String text(Written written) {
        BufferRecycler recycler = FACTORY._getBufferRecycler();
        try (SegmentedStringWriter out = new SegmentedStringWriter(recycler)) {
            try (JsonGenerator json = FACTORY.createGenerator(out)) {
                written.to(json);
            }
            return out.getAndClear();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            recycler.releaseToPool();
        }
    }

    /** JSON written to a generator. */
    @FunctionalInterface
    public interface Written {
        void to(JsonGenerator json) throws IOException;
    }

    /** The status as {@link StatusEncoder} orders it: empty strings left out. */
    public static void write(JsonGenerator json, ClusterStatus status) throws IOException {
        json.writeStartObject();
        json.writeNumberField("observedGeneration", status.observedGeneration());
        if (status.failure().isPresent()) {
            stringIfNotEmpty(json, "failureReason", status.failure().get().reason());
            stringIfNotEmpty(json, "failureMessage", status.failure().get().message());
        }
        if (status.defaultCni().isPresent()) {
            ClusterStatus.DefaultCni cni = status.defaultCni().get();
            json.writeObjectFieldStart("defaultCNI");
            json.writeStringField("name", cni.name().wireName());
            stringIfNotEmpty(json, "version", cni.version());
            json.writeStringField("status", cni.status().wireName());
            json.writeEndObject();
        }
        char[] chars = new char[TIME_CHARS];
        json.writeArrayFieldStart("conditions");
        for (Condition condition : status.conditions()) {
            json.writeStartObject();
            json.writeStringField("type", condition.type().wireName());
            json.writeStringField("status", condition.status().wireName());
            stringIfNotEmpty(json, "reason", condition.reason());
            stringIfNotEmpty(json, "message", condition.message());
            stringIfNotEmpty(json, "severity", condition.severity().wireName());
            time(json, condition.lastTransitionTime(), chars);
            json.writeEndObject();
        }
        json.writeEndArray();
        if (!status.workerNodeGroups().isEmpty()) {
            json.writeArrayFieldStart("workerNodeGroups");
            for (ClusterStatus.WorkerNodeGroupStatus group : status.workerNodeGroups()) {
                json.writeStartObject();
                json.writeStringField("name", group.name());
                if (group.kubernetesVersion().isPresent()) {
                    json.writeStringField("kubernetesVersion", group.kubernetesVersion().get().toString());
                }
                json.writeNumberField("replicas", group.replicas());
                json.writeNumberField("readyReplicas", group.readyReplicas());
                json.writeNumberField("upToDateReplicas", group.upToDateReplicas());
                json.writeEndObject();
            }
            json.writeEndArray();
        }
        ClusterStatus.Versions versions = status.versions();
        if (hasAny(versions)) {
            json.writeObjectFieldStart("versions");
            stringIfPresent(json, "next", versions.next());
            stringIfPresent(json, "current", versions.current());
            stringIfPresent(json, "last", versions.last());
            if (versions.currentKubernetes().isPresent()) {
                currentKubernetes(json, versions.currentKubernetes().get());
            }
            json.writeEndObject();
        }
        json.writeEndObject();
    }

    /** {@code versions.currentKubernetes}, each group's {@code name} first. */
    private static void currentKubernetes(JsonGenerator json, KubernetesVersions recorded) throws IOException {
        json.writeObjectFieldStart("currentKubernetes");
        if (recorded.cluster().isPresent()) {
            json.writeStringField("kubernetesVersion", recorded.cluster().get().toString());
        }
        json.writeArrayFieldStart("workerNodeGroups");
        for (KubernetesVersions.Group group : recorded.workerNodeGroups()) {
            json.writeStartObject();
            json.writeStringField("name", group.name());
            if (group.own().isPresent()) {
                json.writeStringField("kubernetesVersion", group.own().get().toString());
            }
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeEndObject();
    }

    private static final int TIME_CHARS = 32;

    /**
     * {@code lastTransitionTime}: the instant as {@link Instant#toString} writes it, without its formatter's garbage.
     */
    private static void time(JsonGenerator json, Instant time, char[] chars) throws IOException {
        json.writeFieldName("lastTransitionTime");
        int length = iso(time, chars);
        if (length < 0) {
            json.writeString(time.toString());
        } else {
            json.writeString(chars, 0, length);
        }
    }

    /**
     * {@link Instant#toString} (ISO-8601, UTC, seconds always, a fraction in groups of three digits where there is
     * one) into {@code chars}: its length, or -1 for a year outside 0000 to 9999, which it writes otherwise.
     */
    static int iso(Instant time, char[] chars) {
        long seconds = time.getEpochSecond();
        long days = Math.floorDiv(seconds, 86_400);
        int ofDay = (int) Math.floorMod(seconds, 86_400);
        // The civil date of a day count (H. Hinnant's days_from_civil, inverted): eras of 400 years from 0000-03-01.
        long shifted = days + 719_468;
        long era = Math.floorDiv(shifted, 146_097);
        long ofEra = shifted - era * 146_097;
        long yearOfEra = (ofEra - ofEra / 1_460 + ofEra / 36_524 - ofEra / 146_096) / 365;
        long dayOfYear = ofEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        long monthFromMarch = (5 * dayOfYear + 2) / 153;
        long day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1;
        long month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
        long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
        if (year < 0 || year > 9_999) {
            return -1;
        }
        digits(chars, 0, year, 4);
        chars[4] = '-';
        digits(chars, 5, month, 2);
        chars[7] = '-';
        digits(chars, 8, day, 2);
        chars[10] = 'T';
        digits(chars, 11, ofDay / 3_600, 2);
        chars[13] = ':';
        digits(chars, 14, ofDay / 60 % 60, 2);
        chars[16] = ':';
        digits(chars, 17, ofDay % 60, 2);
        int length = 19;
        int nano = time.getNano();
        if (nano != 0) {
            chars[length++] = '.';
            if (nano % 1_000_000 == 0) {
                length = digits(chars, length, nano / 1_000_000, 3);
            } else if (nano % 1_000 == 0) {
                length = digits(chars, length, nano / 1_000, 6);
            } else {
                length = digits(chars, length, nano, 9);
            }
        }
        chars[length++] = 'Z';
        return length;
    }

    /** {@code value} in {@code count} decimal digits, zeros in front; where they end. */
    private static int digits(char[] chars, int at, long value, int count) {
        for (int i = at + count - 1; i >= at; i--) {
            chars[i] = (char) ('0' + value % 10);
            value /= 10;
        }
        return at + count;
    }

    private static boolean hasAny(ClusterStatus.Versions versions) {
        return versions.next().isPresent() || versions.current().isPresent() || versions.last().isPresent()
                || versions.currentKubernetes().isPresent();
    }

    private static void stringIfNotEmpty(JsonGenerator json, String field, String value) throws IOException {
        if (!value.isEmpty()) {
            json.writeStringField(field, value);
        }
    }

    private static void stringIfPresent(JsonGenerator json, String field, Optional<String> value) throws IOException {
        if (value.isPresent()) {
            json.writeStringField(field, value.get());
        }
    }
}
