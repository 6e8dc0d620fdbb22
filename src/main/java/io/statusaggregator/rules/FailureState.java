package io.statusaggregator.rules;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ClusterStatus.Failure;
import java.util.Optional;
import java.util.Set;
import io.statusaggregator.versions.KubernetesVersionSkew;

/**
 * {@code failureReason}/{@code failureMessage}. The pair this aggregator raises is recomputed every time, so it
 * clears itself when the cause is gone; a pair another controller wrote is that controller's to clear, and is
 * kept while this aggregator raises none of its own.
 */
public final class FailureState {
    /** The reasons this aggregator raises; any other reason on the Cluster was written by someone else. */
    public static final Set<String> OWN_REASONS = Set.of(KubernetesVersionSkew.REASON);

    private FailureState() {
    }

    public static Optional<Failure> resolve(Optional<Failure> raised, ClusterStatus previous) {
        if (raised.isPresent()) {
            return raised;
        }
        return previous.failure().filter(f -> !OWN_REASONS.contains(f.reason()));
    }
}
