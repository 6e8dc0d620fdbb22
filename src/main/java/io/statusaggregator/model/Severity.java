package io.statusaggregator.model;

import java.util.Arrays;
import java.util.Optional;

/** A condition's severity; {@link #NONE} (written as empty) on a True condition. */
public enum Severity {
    ERROR("Error"),
    WARNING("Warning"),
    INFO("Info"),
    NONE("");

    private final String wireName;

    Severity(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<Severity> of(String wireName) {
        return Arrays.stream(values()).filter(s -> s.wireName.equals(wireName)).findFirst();
    }
}
