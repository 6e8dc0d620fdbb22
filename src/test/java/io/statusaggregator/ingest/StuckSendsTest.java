package io.statusaggregator.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.ObjectKind;
import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;
import io.statusaggregator.topics.ObjectStateKey;

/**
 * A send re-tried every second is warned about once a minute, not every second; one the broker keeps refusing is
 * stuck (readiness) after the bound and clears when it is sent; a passing outage is never "stuck".
 */
class StuckSendsTest {
    private static final long SECOND = 1_000_000_000L;
    private static final ObjectStateKey ALPHA = new ObjectStateKey("alpha", ObjectKind.EKSA_CLUSTER,
            new ObjectKey("default", "alpha"));
    private static final ObjectStateKey BRAVO = new ObjectStateKey("bravo", ObjectKind.MACHINE,
            new ObjectKey("eksa-system", "bravo-m1"));

    @Test
    void aRefusedSendIsWarnedAboutOnceAMinuteStuckAfterTheBoundAndClearedWhenSent() {
        StuckSends sends = new StuckSends(Duration.ofSeconds(30));
        RecordTooLargeException refused = new RecordTooLargeException("The message is 1572960 bytes when serialized");
        long now = 100 * SECOND;
        int warnings = 0;
        for (int second = 0; second <= 125; second++) {
            if (sends.failed(ALPHA, refused, now + second * SECOND).isPresent()) {
                warnings++;
            }
            if (second == 30) {
                assertEquals(Optional.empty(), sends.stuck(now + second * SECOND), "not beyond the bound yet");
            }
        }
        assertEquals(3, warnings, "at 0, 60 and 120 s, of 126 failures");
        String stuck = sends.stuck(now + 125 * SECOND).orElseThrow();
        assertEquals("the state of Cluster.anywhere.eks.amazonaws.com default/alpha not sent for 125 s (126 attempts): "
                + refused, stuck);

        assertEquals("sent the state of Cluster.anywhere.eks.amazonaws.com default/alpha after 126 failed attempts "
                + "over 126 s",
                sends.sent(ALPHA, now + 126 * SECOND).orElseThrow());
        assertEquals(Optional.empty(), sends.stuck(now + 126 * SECOND));
        assertEquals(Optional.empty(), sends.sent(ALPHA, now + 127 * SECOND), "said once");
    }

    @Test
    void aPassingOutageIsNotStuckAndAStandbyHasNothingStuck() {
        StuckSends sends = new StuckSends(Duration.ofSeconds(30));
        long now = 100 * SECOND;
        for (int second = 0; second <= 90; second++) {
            sends.failed(BRAVO, new TimeoutException("Expiring 1 record(s)"), now + second * SECOND);
        }
        assertEquals(Optional.empty(), sends.stuck(now + 90 * SECOND), "the Kafka wellness check's to show");

        sends.failed(ALPHA, new RecordTooLargeException("too large"), now);
        assertTrue(sends.stuck(now + 31 * SECOND).orElseThrow().endsWith("(2 objects failing)"));
        sends.clear();
        assertEquals(Optional.empty(), sends.stuck(now + 31 * SECOND));
    }
}
