package io.statusaggregator.model.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The canonical text written from a parser's tokens is the one the tree's sorted writer gives (so a spec's hash in
 * the version history does not depend on which way it was read), or none at all.
 */
class CanonicalJsonTest {
    private final CanonicalJson canonical = new CanonicalJson();

    /** The text and hash written from the tokens of {@code json}, every token read (as a reader that skips would). */
    private Optional<String> written(String json) throws IOException {
        try (JsonParser parser = ObjectFields.parser(json.getBytes(StandardCharsets.UTF_8))) {
            parser.nextToken();
            CanonicalJson.Tokens recording = canonical.recording(parser);
            recording.skipChildren();
            assertEquals(null, recording.nextToken(), "the value is all of " + json);
            return canonical.hash().map(hash -> canonical.text() + " " + hash);
        }
    }

    /** What the tree gives: its sorted text and that text's hash. */
    private static String tree(String json) throws IOException {
        JsonNode tree = JsonMutations.JSON.readTree(json);
        return SpecHash.canonical(tree) + " " + SpecHash.of(tree);
    }

    private void assertAsTree(String json) throws IOException {
        assertEquals(Optional.of(tree(json)), written(json), json);
    }

    @Test
    void everyCharacterIsWrittenAsTheTreeWritesItInAValueAndInAKey() throws IOException {
        for (int c = 0; c <= 0xFFFF; c++) {
            String escaped = "\\u%04x".formatted(c);
            assertAsTree("{\"kk\":\"a" + escaped + "b\",\"v\":[\"" + escaped + "\"]}");
            if (Character.isSurrogate((char) c)) {
                continue; // alone in a key, the parser refuses it (both ways of reading)
            }
            assertAsTree("{\"kk\":1,\"" + escaped + "\":\"" + escaped + "\"}");
            if (c >= 0x20 && c != '"' && c != '\\') {
                String raw = Character.toString(c); // as UTF-8 in the input, not escaped
                assertAsTree("{\"" + raw + "\":\"" + raw + raw + "\"}");
            }
        }
    }

    @Test
    void surrogatePairsEscapedOrNotAndLoneSurrogatesAreWrittenAsTheTreeWritesThem() throws IOException {
        Random random = new Random(20261127);
        for (int i = 0; i < 20_000; i++) {
            int codePoint = 0x10000 + random.nextInt(0x100000);
            String pair = new String(Character.toChars(codePoint));
            String escaped = "\\u%04x\\u%04x".formatted((int) pair.charAt(0), (int) pair.charAt(1));
            assertAsTree("{\"" + pair + "\":\"" + escaped + "\",\"" + escaped + "x\":\"" + pair + "\"}");
            // A high surrogate at a string's end, a low one first: each alone, however the next string starts.
            assertAsTree("[\"a\\u%04x\",\"\\u%04xb\"]".formatted((int) pair.charAt(0), (int) pair.charAt(1)));
        }
    }

    @Test
    void keysAreSortedAsStringsCompareAtEveryDepth() throws IOException {
        assertAsTree("{\"b\":1,\"B\":2,\"a\":{\"z\":[{\"y\":1,\"x\":2}],\"\":3},\"\u00e9\":4,\"\uffff\":5,\"\ud83d\ude00\":6,\"aa\":7,\"a.b\":8}");
        assertAsTree("{}");
        assertAsTree("[]");
        assertAsTree("{\"a\":[],\"b\":{},\"c\":[[],[{}],{\"d\":[1,[2,[3]]]}]}");
    }

    @Test
    void wholeNumbersAreWrittenAsTheTreeKeepsThem() throws IOException {
        for (String number : List.of("0", "-0", "7", "-2147483648", "2147483647", "2147483648", "-9223372036854775808",
                "9223372036854775807", "9223372036854775808", "123456789012345678901234567890", "-123456789012345678901234567890")) {
            assertAsTree("{\"n\":" + number + ",\"m\":[" + number + "," + number + "]}");
        }
        assertAsTree("{\"t\":true,\"f\":false,\"n\":null,\"s\":\"\"}");
    }

    @Test
    void writesNothingForWhatOnlyTheTreeCanWrite() throws IOException {
        for (String json : List.of(
                "{\"a\":1.5}",                           // a fraction: the tree's double has a form of its own
                "{\"a\":1e3}",
                "{\"a\":{\"b\":1,\"b\":2}}",             // a repeated key: the tree keeps the last
                "{\"a\":1,\"b\":2,\"a\":3}",
                "{" + manyMembers(CanonicalJson.MEMBERS + 1) + "}")) {
            assertEquals(Optional.empty(), written(json), json);
        }
        assertAsTree("{" + manyMembers(CanonicalJson.MEMBERS) + "}");
        // The next value starts afresh.
        assertAsTree("{\"a\":1}");
    }

    @Test
    void aValueLargerThanTheBuffersKeptIsWrittenWholeAndTheNextAfterIt() throws IOException {
        String large = "x".repeat(CanonicalJson.KEPT);
        assertAsTree("{\"b\":{\"d\":\"" + large + "\",\"c\":[\"" + large + "\"]},\"a\":1}");
        assertAsTree("{\"b\":2,\"a\":1}");
    }

    private static String manyMembers(int n) {
        List<String> members = new ArrayList<>();
        for (int i = n; i > 0; i--) {
            members.add("\"k" + i + "\":" + i);
        }
        return String.join(",", members);
    }

    @Test
    void randomDocumentsAreWrittenAsTheTreeWritesThem() throws IOException {
        Random random = new Random(11);
        int exact = 0;
        for (int i = 0; i < 20_000; i++) {
            String json = value(random, 0, true);
            Optional<String> written = written(json);
            if (written.isPresent()) {
                assertEquals(tree(json), written.get(), json);
                exact++;
            }
        }
        assertTrue(exact > 15_000, "most documents have no fraction or repeated key: " + exact);
    }

    private static final List<String> KEYS = List.of("a", "B", "b", "aa", "a-b", "name", "count", "\u00e9t\u00e9", "\u4e2d",
            "\ud83d\ude00", "x\\\"y", "tab\\t", "");

    private static String value(Random random, int depth, boolean object) {
        int kind = object ? 0 : random.nextInt(depth > 3 ? 6 : 8);
        StringBuilder json = new StringBuilder();
        switch (kind) {
            case 0 -> {
                json.append('{');
                int n = random.nextInt(5);
                List<String> keys = new ArrayList<>(KEYS);
                java.util.Collections.shuffle(keys, random);
                for (int m = 0; m < n; m++) {
                    // One time in fifty a key comes twice.
                    String key = random.nextInt(50) == 0 && m > 0 ? keys.get(m - 1) : keys.get(m);
                    json.append(m > 0 ? "," : "").append('"').append(key).append("\":").append(value(random, depth + 1, false));
                }
                json.append('}');
            }
            case 1 -> json.append(random.nextInt(20) == 0 ? "2.50" : Long.toString(random.nextLong() >> random.nextInt(64)));
            case 2 -> json.append(random.nextBoolean() ? "true" : random.nextBoolean() ? "false" : "null");
            case 3, 4, 5 -> json.append('"').append(KEYS.get(random.nextInt(KEYS.size()))).append(random.nextInt(100)).append('"');
            default -> {
                json.append('[');
                int n = random.nextInt(4);
                for (int m = 0; m < n; m++) {
                    json.append(m > 0 ? "," : "").append(value(random, depth + 1, false));
                }
                json.append(']');
            }
        }
        return json.toString();
    }

    @Test
    void aTokenReadBySkippingIsWrittenAsOneReadByTheToken() throws IOException {
        String json = "{\"b\":{\"y\":[1,{\"q\":true}],\"x\":\"s\"},\"a\":null}";
        try (JsonParser parser = ObjectFields.parser(json.getBytes(StandardCharsets.UTF_8))) {
            parser.nextToken();
            CanonicalJson.Tokens recording = canonical.recording(parser);
            assertEquals("b", recording.nextFieldName());
            assertEquals(JsonToken.START_OBJECT, recording.nextToken());
            assertEquals(JsonToken.FIELD_NAME, recording.nextToken());
            recording.nextToken();
            recording.skipChildren(); // the list, by skipping
            assertEquals("x", recording.nextFieldName());
            assertEquals(JsonToken.VALUE_STRING, recording.nextToken());
            recording.skipChildren(); // nothing: a string has no children
            while (recording.nextToken() != null) {
                // the rest, token by token
            }
        }
        assertEquals(Optional.of(tree(json)), canonical.hash().map(hash -> canonical.text() + " " + hash));
    }
}
