package io.statusaggregator.model;

import java.util.Optional;

/** The conditions this aggregator owns, in the order the contract writes them. */
public enum ConditionType {
    CONTROL_PLANE_INITIALIZED("ControlPlaneInitialized"),
    CONTROL_PLANE_READY("ControlPlaneReady"),
    WORKERS_READY("WorkersReady"),
    DEFAULT_CNI_CONFIGURED("DefaultCNIConfigured"),
    READY("Ready");

    /** Read on every record: no array copied, no stream, per lookup. */
    private static final ConditionType[] VALUES = values();

    private final String wireName;

    ConditionType(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<ConditionType> of(String wireName) {
        for (ConditionType candidate : VALUES) {
            if (candidate.wireName.equals(wireName)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
