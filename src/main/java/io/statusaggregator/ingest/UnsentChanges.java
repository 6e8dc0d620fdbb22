package io.statusaggregator.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import io.statusaggregator.model.ObjectKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The changes a standby saw and did not send, each object's last, kept for {@link #RECENT}: a standby that takes
 * over sends them first, since the replica that led before may not have (it is gone, or lost the Lease).
 */
final class UnsentChanges {
    /** How far back a standby taking over sends what it saw first; well over the Lease's duration. */
    static final Duration RECENT = Duration.ofSeconds(60);

    /** A change: the object's key in its informer's store, or its last state if deleted; when, by the nano clock. */
    record Change(ObjectKind kind, String key, JsonNode deleted, long at) {}

    private final Map<String, Change> changes = new ConcurrentHashMap<>();

    /** Keeps a change to {@code storeKey}'s object, in place of the one kept before. */
    void keep(ObjectKind kind, String storeKey, JsonNode deletedOrNull, long at) {
        changes.put(kind.name() + "/" + storeKey, new Change(kind, storeKey, deletedOrNull, at));
    }

    /** Every change kept, taken out. */
    List<Change> takeAll() {
        List<Change> all = new ArrayList<>(changes.values());
        changes.clear();
        return all;
    }

    /** Forgets the changes older than {@link #RECENT}. */
    void forgetOld(long now) {
        changes.values().removeIf(change -> now - change.at() > RECENT.toNanos());
    }
}
