package io.statusaggregator.model;

import java.util.Optional;

/** A condition's severity; {@link #NONE} (written as empty) on a True condition. */
public enum Severity {
    ERROR("Error"),
    WARNING("Warning"),
    INFO("Info"),
    NONE("");

    /** Read on every record: no array copied, no stream, per lookup. */
    private static final Severity[] VALUES = values();

    private final String wireName;

    Severity(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<Severity> of(String wireName) {
        for (Severity candidate : VALUES) {
            if (candidate.wireName.equals(wireName)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
