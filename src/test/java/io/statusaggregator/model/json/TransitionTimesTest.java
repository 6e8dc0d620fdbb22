package io.statusaggregator.model.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The hand-read form gives what Instant.parse gives, and refuses what it refuses. */
class TransitionTimesTest {
    @Test
    void readsKubernetesTimesAsInstantParseDoes() {
        Random random = new Random(7);
        for (int i = 0; i < 100_000; i++) {
            Instant instant = Instant.ofEpochSecond(random.nextLong(-62_000_000_000L, 250_000_000_000L)).truncatedTo(ChronoUnit.SECONDS);
            String text = instant.toString();
            assertEquals(Instant.parse(text), TransitionTimes.parse(text), text);
        }
        assertEquals(Instant.parse("2024-02-29T23:59:59Z"), TransitionTimes.parse("2024-02-29T23:59:59Z"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2023-06-05T21:58:57.123Z", "2023-06-05T21:58:57+02:00", "2016-12-31T23:59:60Z", "2023-06-05T24:00:00Z"})
    void leavesOtherFormsToInstantParse(String text) {
        Instant expected;
        try {
            expected = Instant.parse(text);
        } catch (DateTimeParseException e) {
            assertThrows(DateTimeParseException.class, () -> TransitionTimes.parse(text), text);
            return;
        }
        assertEquals(expected, TransitionTimes.parse(text), text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"2023-02-29T00:00:00Z", "2023-13-01T00:00:00Z", "2023-00-10T00:00:00Z", "2023-06-05T21:60:00Z",
            "2023-06-05T21:58:5xZ", "yesterday", "", "+2023-06-05T21:58:57", "2023-06-05 21:58:57Z", "2023-06-31T00:00:00Z"})
    void refusesWhatInstantParseRefuses(String text) {
        assertThrows(DateTimeParseException.class, () -> Instant.parse(text));
        assertThrows(DateTimeParseException.class, () -> TransitionTimes.parse(text), text);
    }
}
