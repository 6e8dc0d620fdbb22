package io.statusaggregator.http;

import static io.statusaggregator.http.BodyPace.Verdict.GOING;
import static io.statusaggregator.http.BodyPace.Verdict.TOO_LATE;
import static io.statusaggregator.http.BodyPace.Verdict.TOO_SLOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BodyPaceTest {
    private final BodyPace pace = new BodyPace(Duration.ofSeconds(10), 1024);

    @Test
    void aBodyHasItsFirstSecondWhateverItsRate() {
        assertEquals(GOING, pace.of(Duration.ofMillis(999), 0));
    }

    @Test
    void fromItsFirstSecondOnABodyMustKeepTheAverageRate() {
        assertEquals(TOO_SLOW, pace.of(Duration.ofSeconds(1), 1023));
        assertEquals(GOING, pace.of(Duration.ofSeconds(1), 1024));
        assertEquals(TOO_SLOW, pace.of(Duration.ofSeconds(4), 4000),
                "one byte every 2 s, or a fast start then a stall");
        assertEquals(GOING, pace.of(Duration.ofMillis(9_999), 2_000_000), "a large body sent fast");
    }

    @Test
    void noBodyGoesOnPastTheDeadlineHoweverFast() {
        assertEquals(TOO_LATE, pace.of(Duration.ofSeconds(10), 100_000_000));
        assertEquals(TOO_LATE, new BodyPace(Duration.ofSeconds(2), 0).of(Duration.ofSeconds(3), 0));
        assertEquals(GOING, new BodyPace(Duration.ofSeconds(2), 0).of(Duration.ofMillis(1_999), 0),
                "no floor: only the deadline");
    }

    @Test
    void theClientIsToldWhichLimitItMetInOneLine() {
        assertTrue(pace.refusal(TOO_SLOW).contains("slower than 1024 bytes a second"), pace.refusal(TOO_SLOW));
        assertTrue(pace.refusal(TOO_LATE).contains("did not arrive within 10 s"), pace.refusal(TOO_LATE));
        assertEquals("did not arrive within 1500 ms", new BodyPace(Duration.ofMillis(1500), 0).refusal(TOO_LATE)
                .replaceAll(".*(did not arrive within [^;]*);.*", "$1"));
    }

    @Test
    void aDeadlineOfNothingOrANegativeFloorIsNoSetting() {
        assertThrows(IllegalArgumentException.class, () -> new BodyPace(Duration.ZERO, 1));
        assertThrows(IllegalArgumentException.class, () -> new BodyPace(Duration.ofSeconds(1), -1));
    }
}
