package io.statusaggregator.model.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.statusaggregator.model.KubernetesVersion;
import io.statusaggregator.model.ObservedCondition;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The values that come again in record after record (API versions, kinds, deployment names, versions, condition
 * types, statuses and reasons, whole conditions), read once and then shared. A decoded object lives until its object's
 * next record is read, about a second in a busy fleet: values of its own would be copied by each young collection
 * meanwhile (see docs/how-it-works.md). Bounded: a string's slot holds the latest string that hashed to it, and the
 * other tables start again when full, and keep no value over {@value #LONGEST} characters, so a value seen once costs
 * what it did before and the tables stay small whatever the objects say. Not thread-safe: one per reader.
 */
final class RepeatedValues {
    private static final int SLOTS = 1 << 12;
    /** Longer strings (most messages) are made as they come: seldom repeated exactly, and costly to compare. */
    private static final int LONGEST = 96;
    /** Entries of the versions' and the conditions' tables before they start again. */
    private static final int TABLE_LIMIT = 4_096;

    private final String[] strings = new String[SLOTS];
    private final Map<String, Optional<KubernetesVersion>> versions = new HashMap<>();
    private final Map<ObservedCondition, ObservedCondition> conditions = new HashMap<>();

    /** A string, or null for an explicit null, as {@link StrictTokens#text} reads it; one seen before is shared. */
    String text(JsonParser parser, JsonToken value) throws IOException, StrictTokens.GiveUp {
        if (value != JsonToken.VALUE_STRING) {
            return StrictTokens.text(parser, value);
        }
        char[] chars = parser.getTextCharacters();
        int offset = parser.getTextOffset();
        int length = parser.getTextLength();
        if (length > LONGEST) {
            return new String(chars, offset, length);
        }
        int hash = 0;
        for (int i = offset, end = offset + length; i < end; i++) {
            hash = 31 * hash + chars[i];
        }
        int slot = (hash ^ hash >>> 16) & (SLOTS - 1);
        String known = strings[slot];
        if (known != null && same(known, chars, offset, length)) {
            return known;
        }
        String text = new String(chars, offset, length);
        strings[slot] = text;
        return text;
    }

    /**
     * {@code expected} if the string value the parser is at equals it, compared where the parser holds it; otherwise
     * what {@link #text} reads. For the names a record's key already holds ({@code expected} may be null).
     */
    String text(JsonParser parser, JsonToken value, String expected) throws IOException, StrictTokens.GiveUp {
        if (expected != null && value == JsonToken.VALUE_STRING
                && same(expected, parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength())) {
            return expected;
        }
        return text(parser, value);
    }

    /** {@link KubernetesVersion#parseMachine} of {@code text}, parsed once per distinct text (a long one each time). */
    Optional<KubernetesVersion> machineVersion(String text) {
        if (text.length() > LONGEST) {
            return KubernetesVersion.parseMachine(text);
        }
        Optional<KubernetesVersion> known = versions.get(text);
        if (known == null) {
            if (versions.size() >= TABLE_LIMIT) {
                versions.clear();
            }
            known = KubernetesVersion.parseMachine(text);
            versions.put(text, known);
        }
        return known;
    }

    /**
     * {@code condition}, or an equal one read before. One with a long text is not kept: the table must stay small
     * whatever the objects say (a condition's message can be as long as an object allows).
     */
    ObservedCondition condition(ObservedCondition condition) {
        if (condition.type().length() > LONGEST || condition.status().length() > LONGEST
                || condition.reason().length() > LONGEST || condition.message().length() > LONGEST) {
            return condition;
        }
        ObservedCondition known = conditions.get(condition);
        if (known != null) {
            return known;
        }
        if (conditions.size() >= TABLE_LIMIT) {
            conditions.clear();
        }
        conditions.put(condition, condition);
        return condition;
    }

    private static boolean same(String known, char[] chars, int offset, int length) {
        if (known.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (known.charAt(i) != chars[offset + i]) {
                return false;
            }
        }
        return true;
    }
}
