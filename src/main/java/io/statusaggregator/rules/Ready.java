package io.statusaggregator.rules;

import io.statusaggregator.model.ClusterStatus.Failure;
import io.statusaggregator.model.Severity;
import java.util.List;
import java.util.Optional;

/** {@code Ready}: the summary. It mirrors the first of the component conditions that holds it back. */
public final class Ready {
    private Ready() {
    }

    public static Verdict evaluate(Verdict controlPlaneReady, Verdict workersReady, Verdict defaultCniConfigured,
            Optional<Failure> failure) {
        for (Verdict component : List.of(controlPlaneReady, workersReady, defaultCniConfigured)) {
            if (!component.isTrue() && !component.reason().equals(DefaultCniConfigured.SKIP_UPGRADES)) {
                return component;
            }
        }
        return failure.map(f -> Verdict.notMet(f.reason(), f.message(), Severity.ERROR)).orElse(Verdict.TRUE);
    }
}
