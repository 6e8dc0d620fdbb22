package io.statusaggregator.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AlertDeliveryTest {
    private static final Duration RESEND = Duration.ofMinutes(5);
    private static final Duration EVALUATION = Duration.ofSeconds(15);
    private static final Instant T0 = Instant.parse("2026-12-06T12:00:00Z");

    private final AlertDelivery delivery = new AlertDelivery(RESEND, EVALUATION);

    private static ClusterAlerts.Alert alert(String cluster, String summary) {
        return new ClusterAlerts.Alert(Map.of("alertname", "EksaClusterNotReady", "cluster", cluster),
                Map.of("summary", summary), T0);
    }

    private static ClusterAlerts.Evaluation firing(ClusterAlerts.Alert... alerts) {
        return new ClusterAlerts.Evaluation(Map.of("c", List.of(alerts)), List.of());
    }

    @Test
    void aNewAlertIsPostedOnceAndAgainEveryResendIntervalUntilItExpiresWithoutThem() {
        ClusterAlerts.Alert a = alert("ns/a", "not ready");
        AlertDelivery.Batch first = delivery.plan(firing(a), T0);
        assertEquals(List.of(a), first.sent());
        assertEquals(List.of(a), first.newlyFiring());
        assertEquals(T0.plus(RESEND.multipliedBy(3)), first.endsAt(), "expires unless posted again");
        delivery.delivered(first, T0);

        assertEquals(List.of(), delivery.plan(firing(a), T0.plus(RESEND).minusSeconds(1)).sent());
        AlertDelivery.Batch again = delivery.plan(firing(a), T0.plus(RESEND));
        assertEquals(List.of(a), again.sent());
        assertEquals(List.of(), again.newlyFiring(), "posted again, not newly firing");
    }

    @Test
    void aChangedAlertIsPostedAtOnce() {
        delivery.delivered(delivery.plan(firing(alert("ns/a", "not ready")), T0), T0);
        ClusterAlerts.Alert changed = alert("ns/a", "still not ready: 2 of 3 machines");
        AlertDelivery.Batch batch = delivery.plan(firing(changed), T0.plusSeconds(1));
        assertEquals(List.of(changed), batch.sent());
        assertEquals(List.of(), batch.newlyFiring());
    }

    @Test
    void anEvaluationIsDueAfterEventsOrOnceTheIntervalHasPassed() {
        assertTrue(delivery.due(T0), "the first look evaluates");
        delivery.delivered(delivery.plan(firing(), T0), T0);
        assertFalse(delivery.due(T0.plusSeconds(1)));
        assertTrue(delivery.due(T0.plus(EVALUATION)), "Ready's clock runs without events");
        delivery.eventTaken();
        assertTrue(delivery.due(T0.plusSeconds(1)));
    }

    @Test
    void aFailedPostIsRetriedWithABackoffThatDoublesToItsMaximumAndResetsOnSuccess() {
        assertEquals(AlertDelivery.INITIAL_BACKOFF, delivery.failed(T0));
        assertFalse(delivery.due(T0.plusMillis(499)));
        assertTrue(delivery.due(T0.plusMillis(500)));
        Duration last = Duration.ZERO;
        for (int i = 0; i < 10; i++) {
            last = delivery.failed(T0);
        }
        assertEquals(AlertDelivery.MAX_BACKOFF, last);
        assertTrue(delivery.delivered(delivery.plan(firing(), T0), T0), "told that posts work again");
        assertEquals(AlertDelivery.INITIAL_BACKOFF, delivery.failed(T0.plusSeconds(1)), "the backoff starts over");
    }

    @Test
    void aPollWaitsUntilTheNextLookButNeverLongerThanTheEvaluationInterval() {
        delivery.delivered(delivery.plan(firing(), T0), T0);
        assertEquals(EVALUATION.minusSeconds(5), delivery.wait(T0.plusSeconds(5)));
        delivery.eventTaken();
        assertEquals(Duration.ofMillis(10), delivery.wait(T0.plusSeconds(5)), "events: look again at once");
        delivery.delivered(delivery.plan(firing(), T0), T0);
        for (int i = 0; i < 6; i++) {
            delivery.failed(T0); // 0.5, 1, 2, 4, 8, then 16 s
        }
        assertEquals(EVALUATION, delivery.wait(T0), "a backoff of 16 s waits 15 s at most");
    }

    @Test
    void aRebuiltStatePostsWhatFiresAgainAndAForgottenClusterIsAnotherInstances() {
        ClusterAlerts.Alert a = alert("ns/a", "not ready");
        ClusterAlerts.Alert b = alert("ns/b", "not ready");
        delivery.delivered(delivery.plan(firing(a, b), T0), T0);
        delivery.forget("ns/a");
        assertEquals(List.of(a), delivery.plan(firing(a, b), T0.plusSeconds(1)).sent());
        delivery.rebuilt();
        assertTrue(delivery.due(T0.plusSeconds(1)));
        assertEquals(List.of(a, b), delivery.plan(firing(a, b), T0.plusSeconds(1)).newlyFiring());
    }
}
