package io.statusaggregator.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class TallyTest {
    @Test
    void theFirstIsToldAtOnceAndTheRestOnceAnIntervalTogether() {
        Tally tally = new Tally(Duration.ofMinutes(1));
        Instant start = Instant.parse("2026-12-06T10:00:00Z");
        assertEquals(OptionalLong.of(1), tally.add(start));
        for (int i = 1; i <= 500; i++) {
            assertEquals(OptionalLong.empty(), tally.add(start.plusMillis(i * 100L)), "event " + i);
        }
        assertEquals(OptionalLong.of(501), tally.add(start.plusSeconds(60)), "those untold and this one");
        assertEquals(OptionalLong.empty(), tally.add(start.plusSeconds(61)));
        assertEquals(OptionalLong.of(2), tally.add(start.plusSeconds(200)));
    }
}
