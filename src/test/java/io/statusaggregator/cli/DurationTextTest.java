package io.statusaggregator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Durations in messages are written as the help asks users to type them, and read back the same. */
class DurationTextTest {
    @Test
    void aDurationIsWrittenAsTheHelpWritesThem() {
        assertEquals("1m", DurationText.format(Duration.ofMinutes(1)));
        assertEquals("30m", DurationText.format(Duration.ofMinutes(30)));
        assertEquals("2s", DurationText.format(Duration.ofSeconds(2)));
        assertEquals("1h30m", DurationText.format(Duration.ofMinutes(90)));
        assertEquals("1d2h", DurationText.format(Duration.ofHours(26)));
        assertEquals("500ms", DurationText.format(Duration.ofMillis(500)));
        assertEquals("1500ms", DurationText.format(Duration.ofMillis(1_500)));
        assertEquals("0ms", DurationText.format(Duration.ZERO));
        assertEquals(Optional.of(Duration.ofMinutes(90)), DurationText.parse("1h30m"));
        assertEquals(Optional.of(Duration.ofMinutes(10)), DurationText.parse("PT10M"), "ISO-8601 too");
        for (String bad : new String[] {"", "10", "m", "10x", "30s1m", "-5s", "1.5h", "10 m"}) {
            assertEquals(Optional.empty(), DurationText.parse(bad), bad);
        }
        for (String typed : new String[] {"90s", "10m", "1h", "2d", "500ms", "1h30m", "1500ms"}) {
            Duration read = DurationText.parse(typed).orElseThrow();
            assertEquals(Optional.of(read), DurationText.parse(DurationText.format(read)), typed + " written and read again");
        }
    }
}
