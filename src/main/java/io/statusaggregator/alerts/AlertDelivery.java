package io.statusaggregator.alerts;

import io.statusaggregator.model.Pure;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * When the alert bridge posts to Alertmanager and what: after events, every {@code evaluationInterval}, and after a
 * failed post with exponential backoff; resolved alerts always, a firing one when new or changed and again every
 * {@code resendInterval}. Pure: the time and the evaluation in, what to post and when to look again out;
 * {@link AlertBridge} reads the topic and posts. One thread, the bridge's.
 */
@Pure
final class AlertDelivery {
    static final Duration INITIAL_BACKOFF = Duration.ofMillis(500);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    /** What to post of an evaluation: {@code resolved} ending now, {@code sent} firing until {@code endsAt}. */
    record Batch(ClusterAlerts.Evaluation evaluation, List<ClusterAlerts.Alert> resolved,
            List<ClusterAlerts.Alert> sent, List<ClusterAlerts.Alert> newlyFiring, Instant endsAt) {
    }

    /** An alert as last posted, and when: for the resend interval. */
    private record Posted(ClusterAlerts.Alert alert, Instant at) {
    }

    private final Duration resendInterval;
    private final Duration evaluationInterval;
    private final Map<Map<String, String>, Posted> posted = new HashMap<>();
    private boolean eventsSinceDelivery;
    private boolean failing;
    private Duration backoff = INITIAL_BACKOFF;
    private Instant nextAttempt = Instant.MIN;
    private Instant nextEvaluation = Instant.MIN;

    AlertDelivery(Duration resendInterval, Duration evaluationInterval) {
        this.resendInterval = resendInterval;
        this.evaluationInterval = evaluationInterval;
    }

    /** An event was applied: the next look evaluates at once. */
    void eventTaken() {
        eventsSinceDelivery = true;
    }

    /** The state was rebuilt: whatever fires is posted again, for Alertmanager may not hold it. */
    void rebuilt() {
        posted.clear();
        eventsSinceDelivery = true;
    }

    /** A cluster left this instance: what was posted of it is another instance's to resend. */
    void forget(String cluster) {
        posted.keySet().removeIf(labels -> cluster.equals(labels.get("cluster")));
    }

    /** Whether to evaluate and post at {@code now}. */
    boolean due(Instant now) {
        if (now.isBefore(nextAttempt)) {
            return false;
        }
        return eventsSinceDelivery || failing || !now.isBefore(nextEvaluation);
    }

    /** How long a poll may wait at {@code now} before the bridge must look again: at most the evaluation interval. */
    Duration wait(Instant now) {
        Instant wake = failing ? nextAttempt : eventsSinceDelivery ? now : nextEvaluation;
        Duration wait = Duration.between(now, wake);
        Duration floor = Duration.ofMillis(10);
        return wait.compareTo(floor) < 0 ? floor : wait.compareTo(evaluationInterval) > 0 ? evaluationInterval : wait;
    }

    /** What to post of {@code evaluation} at {@code now}. */
    Batch plan(ClusterAlerts.Evaluation evaluation, Instant now) {
        List<ClusterAlerts.Alert> sent = new ArrayList<>();
        List<ClusterAlerts.Alert> newlyFiring = new ArrayList<>();
        for (ClusterAlerts.Alert alert : evaluation.firing()) {
            Posted last = posted.get(alert.labels());
            if (last == null || !last.alert().equals(alert) || !now.isBefore(last.at().plus(resendInterval))) {
                sent.add(alert);
                if (last == null) {
                    newlyFiring.add(alert);
                }
            }
        }
        // As Prometheus does: a firing alert expires unless posted again, should the bridge die.
        Instant endsAt = now.plus(resendInterval.multipliedBy(3));
        return new Batch(evaluation, evaluation.resolved(), sent, newlyFiring, endsAt);
    }

    /**
     * Alertmanager took {@code batch}.
     *
     * @return whether posts had been failing until now
     */
    boolean delivered(Batch batch, Instant now) {
        Set<Map<String, String>> firing = new HashSet<>();
        batch.evaluation().firing().forEach(alert -> firing.add(alert.labels()));
        posted.keySet().retainAll(firing);
        batch.sent().forEach(alert -> posted.put(alert.labels(), new Posted(alert, now)));
        boolean recovered = failing;
        failing = false;
        backoff = INITIAL_BACKOFF;
        nextAttempt = Instant.MIN;
        eventsSinceDelivery = false;
        nextEvaluation = now.plus(evaluationInterval);
        return recovered;
    }

    /**
     * A post failed at {@code now}: the next attempt waits the backoff, which doubles up to its maximum.
     *
     * @return how long until the next attempt
     */
    Duration failed(Instant now) {
        failing = true;
        nextAttempt = now.plus(backoff);
        return pauseAfterError();
    }

    /**
     * The loop failed (the broker away, a commit refused): it pauses this long before it reads again; a post that
     * was failing stays so.
     */
    Duration pauseAfterError() {
        Duration wait = backoff;
        Duration doubled = backoff.multipliedBy(2);
        backoff = doubled.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : doubled;
        return wait;
    }
}
