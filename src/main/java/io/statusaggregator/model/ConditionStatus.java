package io.statusaggregator.model;

import java.util.Optional;

public enum ConditionStatus {
    TRUE("True"),
    FALSE("False"),
    UNKNOWN("Unknown");

    /** Read on every record: no array copied, no stream, per lookup. */
    private static final ConditionStatus[] VALUES = values();

    private final String wireName;

    ConditionStatus(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<ConditionStatus> of(String wireName) {
        for (ConditionStatus candidate : VALUES) {
            if (candidate.wireName.equals(wireName)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
