package io.statusaggregator.model.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** What a user is told of JSON the reader refused: one line, this project's words, where it is. */
class UnreadableJsonTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String problem(String text) {
        JsonProcessingException refused = assertThrows(JsonProcessingException.class, () -> JSON.readTree(text));
        return UnreadableJson.problem(refused);
    }

    @Test
    void theReadersLimitsAreToldAsWhatWasFoundAndTheLimit() {
        assertEquals("nested more than 1000 levels deep", problem("[".repeat(1200) + "]".repeat(1200)));
        assertEquals("a number of 1200 digits, more than the 1000 read", problem("{\"a\": " + "1".repeat(1200) + "}"));
        assertEquals("a field name of 60000 characters, more than the 50000 read", problem("{\"" + "k".repeat(60_000) + "\": 1}"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"a\" 1}                | unexpected character '1' at line 1, column 6",
            "{\"a\": [1, 2}           | unexpected '}' at line 1, column 12",
            "{\"a\":                  | the text ends inside an object at line 1, column 6",
            "{\"a\": [1, 2            | the text ends inside a list at line 1, column 12",
            "{\"a\": \"x              | the text ends inside a string at line 1, column 9",
            "{\"a\": 01}              | not a valid number at line 1, column 8",
            "{'a': 1}                 | unexpected character ''' at line 1, column 2",
            "{\"a\": \"\\q\"}         | an unknown escape of 'q' inside a string at line 1, column 9",
    })
    void syntaxIsToldWithWhereItIs(String text, String told) {
        assertEquals(told, problem(text));
    }

    @Test
    void wordsAndCharactersFromTheTextAreShownPrintableAndCut() {
        assertEquals("unexpected word \"tru\" (text must be quoted; true, false and null are lower case) at line 3, column 8",
                problem("\n\n  {\"a\":tru}"));
        assertEquals("a control character (U+0001) inside a string, where it must be escaped at line 1, column 7",
                problem("{\"a\":\"\u0001\"}"));
        String long1 = problem("{\"a\": " + "x".repeat(500) + "}");
        assertTrue(long1.length() < 200, long1);
    }

    @Test
    void bytesThatAreNotUtf8AreSaidSo() {
        JsonProcessingException refused = assertThrows(JsonProcessingException.class,
                () -> JSON.readTree(new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xff, '"', '}'}));
        assertEquals("not UTF-8 text at line 1, column 8", UnreadableJson.problem(refused));
    }

    @Test
    void noMessageNamesTheReadersClassesOrSettings() {
        for (String text : new String[] {"[".repeat(1200), "{\"a\": NaN}", "{\"a\": [1, 2}", "{\"a\":", "abc",
                "{\"a\": \"" + "x".repeat(100) + new String(new byte[] {0}, StandardCharsets.UTF_8) + "\"}"}) {
            String told = problem(text);
            assertFalse(told.matches("(?s).*(StreamReadConstraints|JsonReadFeature|Source:|REDACTED|`|\\(\\)|code \\d).*"), told);
            assertFalse(told.contains("\n"), told);
        }
    }
}
