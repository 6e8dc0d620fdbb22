package io.statusaggregator.model.json;

import static io.statusaggregator.model.json.StrictTokens.generation;
import static io.statusaggregator.model.json.StrictTokens.object;
import static io.statusaggregator.model.json.StrictTokens.text;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.json.StrictTokens.GiveUp;
import java.io.IOException;

/**
 * What a streaming reader reads of any object, in whatever order its fields come: {@code apiVersion}, {@code kind},
 * and {@code metadata}'s {@code namespace}, {@code name} and {@code generation}. A reader's own fields extend it and
 * read the rest ({@link #metadataField}, {@link #bodyField}). A field read twice (JSON allows it; the tree keeps the
 * last) gives up, leaving the object to {@link ObjectDecoder}.
 */
abstract class ObjectFields {
    private static final JsonFactory JSON = new JsonFactory();
    private static final int API_VERSION = 1, KIND = 1 << 1, METADATA = 1 << 2, NAMESPACE = 1 << 3, NAME = 1 << 4,
            GENERATION = 1 << 5;
    /** The first bit of {@link #once} free for a reader's own fields. */
    static final int FIRST_OWN_BIT = 1 << 6;

    private int seen;
    String apiVersion;
    String kind;
    String namespace;
    String name;
    /** -1 when absent or null. */
    long generation = -1;
    /** What the record's key says this object is, when the reader was told (null when not). */
    ObjectKey expected;

    /** Marks the field of {@code bit} read; a second time gives up. */
    final void once(int bit) throws GiveUp {
        if ((seen & bit) != 0) {
            throw GiveUp.INSTANCE;
        }
        seen |= bit;
    }

    /** A parser of {@code json}, to {@link #read} with. */
    static JsonParser parser(byte[] json) throws IOException {
        return JSON.createParser(json);
    }

    /** A parser of {@code json[offset, offset + length)}. */
    static JsonParser parser(byte[] json, int offset, int length) throws IOException {
        return JSON.createParser(json, offset, length);
    }

    /**
     * Reads the whole object; false when {@code json} is not an object, or content follows it (the tree refuses that).
     */
    final boolean read(JsonParser parser) throws IOException, GiveUp {
        if (parser.nextToken() != JsonToken.START_OBJECT) {
            return false;
        }
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            switch (field) {
                case "apiVersion" -> {
                    once(API_VERSION);
                    apiVersion = string(parser, value, null);
                }
                case "kind" -> {
                    once(KIND);
                    kind = string(parser, value, null);
                }
                case "metadata" -> {
                    once(METADATA);
                    if (object(value)) {
                        metadata(parser);
                    }
                }
                case OversizedObject.FIELD -> throw GiveUp.INSTANCE; // ObjectDecoder says what it is
                default -> bodyField(parser, field, value);
            }
        }
        return parser.nextToken() == null;
    }

    private void metadata(JsonParser parser) throws IOException, GiveUp {
        String field;
        while ((field = parser.nextFieldName()) != null) {
            JsonToken value = parser.nextToken();
            switch (field) {
                case "namespace" -> {
                    once(NAMESPACE);
                    namespace = string(parser, value, expected == null ? null : expected.namespace());
                }
                case "name" -> {
                    once(NAME);
                    name = string(parser, value, expected == null ? null : expected.name());
                }
                case "generation" -> {
                    once(GENERATION);
                    generation = generation(parser, value);
                }
                default -> metadataField(parser, field, value);
            }
        }
    }

    /**
     * A string value, or null for an explicit null, as {@link StrictTokens#text} reads it. A reader may share one it
     * has read before, or {@code expected} (what the record's key says it is, null when nothing is expected) when it
     * is equal.
     */
    String string(JsonParser parser, JsonToken value, String expected) throws IOException, GiveUp {
        return text(parser, value);
    }

    /** A field of {@code metadata} other than these: read it, or skip it ({@code parser.skipChildren()}). */
    abstract void metadataField(JsonParser parser, String field, JsonToken value) throws IOException, GiveUp;

    /** A field of the object other than these ({@code spec}, {@code status}, ...): read it, or skip it. */
    abstract void bodyField(JsonParser parser, String field, JsonToken value) throws IOException, GiveUp;
}
