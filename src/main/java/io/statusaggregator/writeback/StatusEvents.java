package io.statusaggregator.writeback;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Condition;
import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.ConditionType;
import io.statusaggregator.model.Pure;
import io.statusaggregator.model.Severity;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The Kubernetes Events a status change makes on its EKS-A Cluster, so that {@code kubectl describe} and
 * {@code kubectl events} tell its story: one for every condition that moved, one when {@code failureReason} is set or
 * cleared. Pure: statuses in, events out.
 */
@Pure
public final class StatusEvents {
    /** The Event's {@code action}: what this controller did that the Event reports. */
    public static final String ACTION = "UpdateStatus";
    /** The reason of the Event that says a failure cleared (the condition's own reason otherwise). */
    public static final String FAILURE_CLEARED = "FailureCleared";
    /** The reason of the Warning Event that says the aggregator stopped writing the Cluster's status. */
    public static final String STEPPED_ASIDE = "StatusWrittenByAnotherController";
    /** The Event's note is at most 1 KiB on the API server; longer messages are cut, and say so. */
    static final int NOTE_LIMIT = 1_024;

    public enum Type {
        Normal, Warning
    }

    /**
     * One Event to record: {@code type}, {@code reason} and {@code note} as the API calls them. The reason is cut at
     * the API's 128 characters: a failure reason another controller wrote has no limit, and a longer one is refused.
     */
    public record StatusEvent(Type type, String reason, String note) {
        static final int LONGEST_REASON = 128;

        public StatusEvent {
            reason = reason.length() > LONGEST_REASON ? reason.substring(0, LONGEST_REASON) : reason;
        }
    }

    private StatusEvents() {
    }

    /**
     * The Events of one change, conditions in the contract's order, then the failure. {@code before} is empty for a
     * Cluster's first status; a deleted Cluster ({@code after} empty) has no Events: there is nothing to attach them
     * to.
     */
    public static List<StatusEvent> of(Optional<ClusterStatus> before, Optional<ClusterStatus> after) {
        if (after.isEmpty()) {
            return List.of();
        }
        List<StatusEvent> events = new ArrayList<>();
        for (ConditionType type : ConditionType.values()) {
            Optional<Condition> was = before.flatMap(s -> s.condition(type));
            Optional<Condition> now = after.get().condition(type);
            if (now.isPresent() && (was.isEmpty() || moved(was.get(), now.get()))) {
                events.add(of(now.get()));
            }
        }
        Optional<ClusterStatus.Failure> failedBefore = before.flatMap(ClusterStatus::failure);
        Optional<ClusterStatus.Failure> failedNow = after.get().failure();
        if (failedNow.isPresent() && !failedNow.equals(failedBefore)) {
            events.add(new StatusEvent(
                    Type.Warning,
                    failedNow.get().reason(),
                    note(failedNow.get().message(), failedNow.get().reason())));
        } else if (failedNow.isEmpty() && failedBefore.isPresent()) {
            events.add(new StatusEvent(
                    Type.Normal,
                    FAILURE_CLEARED,
                    "failureReason " + failedBefore.get().reason() + " cleared"));
        }
        return events;
    }

    /**
     * The aggregator stopped writing the Cluster's status: {@code writer} (a manager's name; empty when not named)
     * keeps setting it. Says what the Cluster's Ready shows ({@code stored}) and the aggregator's ({@code verdict}).
     */
    public static StatusEvent steppedAside(String writer, ClusterStatus stored, ClusterStatus verdict) {
        String who = writer.isEmpty() ? "Another writer" : "Another writer (" + writer + ")";
        return new StatusEvent(Type.Warning, STEPPED_ASIDE, note(who + " keeps setting this Cluster's status: the "
                + "status aggregator stopped writing it and publishes its own verdict only. Ready: stored "
                + ready(stored) + "; the aggregator's " + ready(verdict), STEPPED_ASIDE));
    }

    /** Ready as a line: its status, reason and message. */
    private static String ready(ClusterStatus status) {
        return status.condition(ConditionType.READY).map(c -> String.join(" ", List.of(c.status().wireName(),
                c.reason(), c.message().isEmpty() ? "" : "\"" + c.message() + "\"")).strip().replaceAll(" +", " "))
                .orElse("none");
    }

    /** A condition turned True: Normal, its type as the reason. Otherwise Warning at severity Warning or Error. */
    private static StatusEvent of(Condition condition) {
        String type = condition.type().wireName();
        if (condition.status() == ConditionStatus.TRUE) {
            return new StatusEvent(Type.Normal, type, type + " is True");
        }
        Type severity = condition.severity() == Severity.WARNING || condition.severity() == Severity.ERROR
                ? Type.Warning
                : Type.Normal;
        String reason = condition.reason().isEmpty() ? type : condition.reason();
        return new StatusEvent(
                severity,
                reason,
                note(condition.message(), type + " is " + condition.status().wireName()));
    }

    private static boolean moved(Condition was, Condition now) {
        return was.status() != now.status()
                || !was.reason().equals(now.reason())
                || !was.message().equals(now.message())
                || !Objects.equals(was.severity(), now.severity());
    }

    private static String note(String message, String otherwise) {
        String note = message.isEmpty() ? otherwise : message;
        if (note.getBytes(StandardCharsets.UTF_8).length <= NOTE_LIMIT) {
            return note;
        }
        String cut = " (cut)";
        int end = Math.min(note.length(), NOTE_LIMIT - cut.length());
        while ((note.substring(0, end) + cut).getBytes(StandardCharsets.UTF_8).length > NOTE_LIMIT
                || Character.isLowSurrogate(note.charAt(end))) {
            end--;
        }
        return note.substring(0, end) + cut;
    }
}
