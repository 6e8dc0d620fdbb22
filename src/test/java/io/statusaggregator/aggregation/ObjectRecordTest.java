package io.statusaggregator.aggregation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.model.Machine;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each kind of record on the object-state topic, read from its bytes. */
class ObjectRecordTest {
    private static final String MACHINE_KEY = "alpha/Machine.cluster.x-k8s.io/eksa-system/alpha-m0";
    private static final String MACHINE = """
            {"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"Machine","metadata":{"namespace":"eksa-system","name":"alpha-m0"},
             "spec":{"clusterName":"alpha"}}""";

    private final ObjectRecord records = new ObjectRecord();

    /** The record read to the end, as the book does when its cluster is computed. */
    private ObjectRecord.Read read(String key, String value) {
        ObjectRecord.Read read = records.readLater(key == null ? null : key.getBytes(StandardCharsets.UTF_8), BookTestBase.fetched(value));
        return read instanceof ObjectRecord.Unread unread ? records.read(unread) : read;
    }

    @Test
    void aMachineIsReadAndATombstoneIsItsDeletion() {
        ObjectRecord.Readable readable = assertInstanceOf(ObjectRecord.Readable.class, read(MACHINE_KEY, MACHINE));
        assertInstanceOf(Machine.class, readable.object());
        assertEquals("alpha", readable.key().clusterName());
        assertInstanceOf(ObjectRecord.Deleted.class, read(MACHINE_KEY, null));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "no key                 | BadKey     | ",
            "not ours               | BadKey     | a/b",
            "unknown kind in key    | BadKey     | alpha/ConfigMap/eksa-system/x",
            "bad name in key        | BadKey     | alpha/Machine.cluster.x-k8s.io/eksa-system/Not_A_Name",
            "non-ASCII name in key  | BadKey     | alpha/Machine.cluster.x-k8s.io/eksa-system/alpha-mé",
    })
    void keysThisApplicationDoesNotWriteAreRefused(String description, String expected, String key) {
        ObjectRecord.Read read = read(key, MACHINE);
        assertEquals(expected, read.getClass().getSimpleName(), description);
        assertTrue(((ObjectRecord.BadKey) read).error().startsWith("not a key this application writes"));
    }

    /** A value that does not parse is told in the project's words, where it stops, not in the parser's. */
    @Test
    void aValueThatIsNotJsonIsToldWhereItStops() {
        String error = ((ObjectRecord.NotJson) read(MACHINE_KEY, "{\"kind\": }")).error();
        assertTrue(error.startsWith("the value is not JSON: ") && error.contains("line 1, column"), error);
        assertFalse(error.contains("Unexpected") || error.contains("code 125") || error.contains("JsonToken"), error);
    }

    /** What goes into the dead letter's error and its log line repeats the record's bytes only as printable text. */
    @Test
    void aRefusalRepeatsNoControlCharacterOfTheRecord() {
        String forged = "evil\n2026-11-28 01:00:00,000 ERROR [io.statusaggregator.Fake] (main) FORGED LINE\u001b[31m";
        String badKey = ((ObjectRecord.BadKey) read(forged, MACHINE)).error();
        assertFalse(badKey.contains("\n") || badKey.contains("\u001b"), badKey);
        assertTrue(badKey.contains("\"evil\\u000a2026-11-28"), badKey);

        String binary = new String(new byte[] {(byte) 0xc4, (byte) 0x80, (byte) 0xec, (byte) 0x8c, (byte) 0x82, '\n', 0x1b},
                StandardCharsets.UTF_8);
        String error = ((ObjectRecord.NotJson) read(MACHINE_KEY, binary)).error();
        assertTrue(error.startsWith("the value is not JSON: ") && error.chars().allMatch(c -> c >= 0x20 && c < 0x7f), error);
    }

    @Test
    void aKeyThatIsNotUtf8IsRefused() {
        assertInstanceOf(ObjectRecord.BadKey.class, records.readLater(new byte[] {(byte) 0xff, (byte) 0xfe}, BookTestBase.fetched(MACHINE)));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "not JSON                      | NotJson     | {not json",
            "JSON with trailing garbage    | NotJson     | {} {}",
            "empty                         | NotJson     | ''",
            "another kind                  | OtherKind   | '{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}'",
            "an array                      | OtherKind   | []",
            "a Machine under another's key | Unreadable  | '{\"apiVersion\":\"cluster.x-k8s.io/v1beta1\",\"kind\":\"Machine\",\"metadata\":{\"namespace\":\"eksa-system\",\"name\":\"other\"},\"spec\":{\"clusterName\":\"alpha\"}}'",
            "labels that are not an object  | Unreadable  | '{\"apiVersion\":\"cluster.x-k8s.io/v1beta1\",\"kind\":\"Machine\",\"metadata\":{\"namespace\":\"eksa-system\",\"name\":\"alpha-m0\",\"labels\":[1]},\"spec\":{\"clusterName\":\"alpha\"}}'",
    })
    void valuesItCannotUseSayWhy(String description, String expected, String value) {
        assertEquals(expected, read(MACHINE_KEY, value).getClass().getSimpleName(), description);
    }
}
