package io.statusaggregator.rules;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.ClusterStatus.Failure;
import java.util.Optional;
import io.statusaggregator.versions.EksaVersionSkew;
import io.statusaggregator.versions.KubernetesVersionSkew;

/**
 * {@code failureReason}/{@code failureMessage}. The pair this aggregator raises is recomputed every time, so it
 * clears itself when the cause is gone; a pair another controller wrote is that controller's to clear, and is
 * kept while this aggregator raises none of its own.
 */
public final class FailureState {
    /**
     * Whether this aggregator raises a failure pair like this one; any other was written by someone else. EKS-A's
     * own controller also uses EksaVersionInvalid, so for that reason only the messages raised here count as own.
     */
    static boolean isOwn(Failure failure) {
        return KubernetesVersionSkew.raises(failure) || EksaVersionSkew.raises(failure)
                || MalformedInputs.raises(failure) || ClusterNameConflict.raises(failure);
    }

    private FailureState() {
    }

    public static Optional<Failure> resolve(Optional<Failure> raised, ClusterStatus previous) {
        if (raised.isPresent()) {
            return raised;
        }
        return previous.failure().filter(f -> !isOwn(f));
    }
}
