package io.statusaggregator.model;

import java.util.Arrays;
import java.util.Optional;

public enum ConditionStatus {
    TRUE("True"),
    FALSE("False"),
    UNKNOWN("Unknown");

    private final String wireName;

    ConditionStatus(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<ConditionStatus> of(String wireName) {
        return Arrays.stream(values()).filter(s -> s.wireName.equals(wireName)).findFirst();
    }
}
