package io.statusaggregator.topics;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Pure;
import io.statusaggregator.model.json.StatusEncoder;
import io.statusaggregator.model.json.StatusJson;
import java.util.Objects;

/**
 * A status as the feeds carry it: the status and its JSON text, encoded at most once, when first asked for: the
 * event's data and the status topic's record both hold it, copied in as it is, and the event's id hashes it. Made for
 * one change and not kept after it, so that the encodings cost no memory per cluster. Equal when the statuses are
 * equal.
 */
@Pure
public final class PublishedStatus {
    private final ClusterStatus status;
    private volatile String json;

    private PublishedStatus(ClusterStatus status) {
        this.status = Objects.requireNonNull(status);
    }

    public static PublishedStatus of(ClusterStatus status) {
        return new PublishedStatus(status);
    }

    public ClusterStatus status() {
        return status;
    }

    /**
     * The status as the Cluster's {@code .status} holds it, as JSON text: the text of {@link StatusEncoder}'s tree
     * ({@link StatusJson#text}).
     */
    public String json() {
        String text = json;
        if (text == null) {
            text = StatusJson.text(status);
            json = text;
        }
        return text;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PublishedStatus published && status.equals(published.status);
    }

    @Override
    public int hashCode() {
        return status.hashCode();
    }

    @Override
    public String toString() {
        return status.toString();
    }
}
