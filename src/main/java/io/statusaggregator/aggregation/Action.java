package io.statusaggregator.aggregation;

import io.statusaggregator.topics.StatusChange;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.EksaCluster;
import io.statusaggregator.model.ObjectKey;
import io.statusaggregator.model.Pure;
import io.statusaggregator.model.json.OversizedObject;
import java.util.Optional;

/** What the {@link ClusterBook} asks of its shell ({@link ActionExecutor}), in answer to a {@link BookEvent}. */
@Pure
sealed interface Action {
    /**
     * Hand {@code status} to write-back for the Cluster {@code cluster}, computed from its state at {@code basis} (its
     * {@code resourceVersion}, the write's precondition; empty when unknown).
     */
    record WriteStatus(ObjectKey cluster, ClusterStatus status, String basis) implements Action {
    }

    /** The Cluster shows a status the feeds do not have yet: its change event, then its status record. */
    record PublishChange(
            EksaCluster cluster, Optional<ClusterStatus> before, ClusterStatus after, StatusChange.Progress progress)
            implements Action {}

    /**
     * A change the broker did not take is taken back: its cluster is computed again later, and the change goes out
     * again then (under the same event id). {@code error}: what the broker said.
     */
    record PublishAgain(ObjectKey cluster, String error) implements Action {
    }

    /** Another writer keeps setting a Cluster's status: this instance stops writing it, and says so once. */
    record StepAside(SteppedAside told) implements Action {
    }

    /** A Cluster is gone: its deletion event (with its last published status), then the tombstone of its status. */
    record AnnounceDeletion(ObjectKey cluster, long generation, ClusterStatus last) implements Action {
    }

    /**
     * A record cannot be used, or names an object newly unreadable: {@code record} to the dead-letter topic;
     * {@code oversized}, when the record is ingest's stand-in for an object too large to send: the letter carries the
     * head of that object instead.
     */
    record DeadLetter(DeadLetterReason reason, String error, SourceRecord record, Optional<OversizedObject> oversized)
            implements Action {
        DeadLetter(DeadLetterReason reason, String error, SourceRecord record) {
            this(reason, error, record, Optional.empty());
        }
    }

    /** Read the status topic for assignment {@code assignment}, then give it back ({@link BookEvent.StatusesRead}). */
    record ReadStatuses(long assignment) implements Action {
    }

    /** Tell the {@link ClusterObserver} what a Cluster shows. */
    record Shows(ClusterObserver.Shown cluster) implements Action {
    }

    /** Tell the {@link ClusterObserver} a Cluster left this instance: deleted, or its partition gone. */
    record Left(ObjectKey cluster) implements Action {
    }

    /**
     * Computing {@code cluster} (its EKS-A Cluster's namespace/name, else its name) failed on a fault, a bug: its
     * status stays as it was until its next record; the other clusters are computed on.
     */
    record ComputationFailed(String cluster, RuntimeException fault) implements Action {}
}
