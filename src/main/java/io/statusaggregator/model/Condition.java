package io.statusaggregator.model;

import java.time.Instant;

/** A condition of the EKS-A Cluster status; {@code reason}, {@code message} and severity are empty when True. */
public record Condition(ConditionType type, ConditionStatus status, String reason, String message, Severity severity,
        Instant lastTransitionTime) {
}
