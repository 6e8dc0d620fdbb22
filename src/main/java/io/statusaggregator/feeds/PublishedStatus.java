package io.statusaggregator.feeds;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.json.StatusEncoder;
import io.statusaggregator.model.json.SpecHash;
import java.util.Objects;

/**
 * A status as the feeds carry it: the status, its JSON and its canonical text (what a change's event id hashes),
 * each encoded at most once, when first asked for: the event's id and data and the status topic's record all read
 * them, and encoding the status for each was most of the work of publishing a change. Made for one change and not
 * kept after it, so that the encodings cost no memory per cluster. Equal when the statuses are equal.
 *
 * <p>The JSON is shared by every document that holds the status: nothing may modify it.
 */
public final class PublishedStatus {
    private final ClusterStatus status;
    private volatile ObjectNode json;
    private volatile String canonical;

    private PublishedStatus(ClusterStatus status) {
        this.status = Objects.requireNonNull(status);
    }

    public static PublishedStatus of(ClusterStatus status) {
        return new PublishedStatus(status);
    }

    public ClusterStatus status() {
        return status;
    }

    /** The status as the Cluster's {@code .status} holds it ({@link StatusEncoder}); read only. */
    public ObjectNode json() {
        ObjectNode encoded = json;
        if (encoded == null) {
            encoded = StatusEncoder.encode(status);
            json = encoded;
        }
        return encoded;
    }

    /** The canonical JSON text of {@link #json()} (keys sorted, as {@link SpecHash#canonical} writes it). */
    public String canonical() {
        String text = canonical;
        if (text == null) {
            text = SpecHash.canonical(json());
            canonical = text;
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
