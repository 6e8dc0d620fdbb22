package io.statusaggregator.rules;

import io.statusaggregator.model.ConditionStatus;
import io.statusaggregator.model.Severity;

/** What one rule concludes about one condition, before it is stamped with a transition time. */
public record Verdict(ConditionStatus status, String reason, String message, Severity severity) {
    public static final Verdict TRUE = new Verdict(ConditionStatus.TRUE, "", "", Severity.NONE);

    public static Verdict notMet(String reason, String message) {
        return notMet(reason, message, Severity.INFO);
    }

    public static Verdict notMet(String reason, String message, Severity severity) {
        return new Verdict(ConditionStatus.FALSE, reason, message, severity);
    }

    public boolean isTrue() {
        return status == ConditionStatus.TRUE;
    }
}
