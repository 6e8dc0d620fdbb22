package io.statusaggregator.aggregation;

import io.statusaggregator.model.ClusterStatus;
import io.statusaggregator.model.Pure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Read-your-own-writes for statuses, as the Java Operator SDK's temporary resource cache is for resources: a status
 * handed to write-back counts as the one the Cluster shows until the Cluster shows it (its echo). The Cluster's next
 * states may still carry the older status, read before the write; computing against those would write the same
 * status again. The echo is awaited for {@code echoTimeout} from the end of the write (a write queued behind others
 * or retried through an outage cannot have an echo yet); after that, the Cluster's own status is trusted again
 * (another writer may have overwritten it, or the write was lost).
 *
 * <p>Pure and single-threaded: instants are {@code System.nanoTime()} values passed in.
 *
 * @param <K> what a pending status is kept under: one per cluster
 */
@Pure
final class PendingWrites<K> {
    private record Written(ClusterStatus status, long at) {
    }

    private final long echoTimeoutNanos;
    /** Statuses handed to write-back and not written yet (queued, under way, or retried). */
    private final Map<K, ClusterStatus> beingWritten = new HashMap<>();
    /** Statuses written whose echo has not come, oldest write first. */
    private final LinkedHashMap<K, Written> awaitingEcho = new LinkedHashMap<>();

    PendingWrites(Duration echoTimeout) {
        this.echoTimeoutNanos = echoTimeout.toNanos();
    }

    /** The status pending for {@code key}: the one to count as shown. */
    Optional<ClusterStatus> pending(K key) {
        ClusterStatus writing = beingWritten.get(key);
        return writing != null ? Optional.of(writing) : unechoed(key);
    }

    /** The status written for {@code key} whose echo has not come: the server has it, the Cluster read here not yet. */
    Optional<ClusterStatus> unechoed(K key) {
        Written written = awaitingEcho.get(key);
        return written == null ? Optional.empty() : Optional.of(written.status());
    }

    /** A status handed to write-back; it replaces any pending one, whose echo is no longer awaited. */
    void submitted(K key, ClusterStatus status) {
        awaitingEcho.remove(key);
        beingWritten.put(key, status);
    }

    /**
     * Write-back wrote {@code status}, of which the API server kept {@code kept} (all of it, unless its schema prunes
     * fields; null when write-back is off and nothing was written). If it is still the pending one, the echo of what
     * was kept is awaited from {@code now}, unless the Cluster showed that already: a write that changes nothing on the
     * server makes no echo. A status replaced meanwhile is ignored: write-back writes the newer one next.
     */
    void written(K key, ClusterStatus status, ClusterStatus kept, boolean alreadyShown, long now) {
        if (!status.equals(beingWritten.get(key))) {
            return;
        }
        beingWritten.remove(key);
        if (!alreadyShown && kept != null) {
            awaitingEcho.put(key, new Written(kept, now)); // at the end: the map stays in the order of the writes
        }
    }

    /**
     * Write-back did not write {@code status}: the Cluster changed since it was computed. Unless replaced, not pending.
     */
    void unwritten(K key, ClusterStatus status) {
        if (status.equals(beingWritten.get(key))) {
            beingWritten.remove(key);
        }
    }

    /** The Cluster shows {@code status}: the echo of the pending status ends it; an older status changes nothing. */
    void shown(K key, ClusterStatus status) {
        if (pending(key).filter(status::equals).isPresent()) {
            forget(key);
        }
    }

    /** Nothing pending for {@code key} any more: refused for good, deleted, or no longer this instance's. */
    void forget(K key) {
        beingWritten.remove(key);
        awaitingEcho.remove(key);
    }

    /**
     * The keys whose echo has not come within the timeout, oldest write first; nothing is pending for them any more.
     */
    List<K> expire(long now) {
        List<K> expired = new ArrayList<>();
        Iterator<Map.Entry<K, Written>> oldestFirst = awaitingEcho.entrySet().iterator();
        while (oldestFirst.hasNext()) {
            Map.Entry<K, Written> entry = oldestFirst.next();
            if (now - entry.getValue().at() <= echoTimeoutNanos) {
                break; // the writes after it are younger
            }
            oldestFirst.remove();
            expired.add(entry.getKey());
        }
        return expired;
    }

    int beingWritten() {
        return beingWritten.size();
    }

    int awaitingEcho() {
        return awaitingEcho.size();
    }

    boolean isEmpty() {
        return beingWritten.isEmpty() && awaitingEcho.isEmpty();
    }
}
